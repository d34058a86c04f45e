package detector

import (
	"fmt"
	"math"

	"github.com/udocc/udocc/internal/memory"
)

// checkNetworksMemory refuses layer widths whose networks cannot be held, before any
// is built: members networks of d inputs and the hidden widths, each a float32 weight
// and bias per connection, with its gradient and two Adam moments, and an autoencoder
// of as many again (the encoder mirrored). A width of 10⁹ would otherwise be allocated
// page by page until the kernel's OOM killer picked a process.
func checkNetworksMemory(d int, hidden []int, members int) error {
	params, in := 0.0, float64(d)
	for _, h := range hidden {
		params += in*float64(h) + float64(h)
		in = float64(h)
	}
	need := params * 4 * 4 * 2 * float64(max(members, 1))
	bytes := int64(-1) // beyond int64: more than any machine
	if need < math.MaxInt64/2 {
		bytes = int64(need)
	}
	what := fmt.Sprintf("udocc: Options.Hidden %v on %d inputs (%.3g parameters a network, %d members)", hidden, d, params, members)
	return memory.Check(what, bytes)
}
