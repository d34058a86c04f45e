package detector

import (
	"slices"
	"testing"

	"github.com/udocc/udocc/internal/torch"
)

// TestExplainChunkOf checks the block sizes of the shim's attributions: at least one row,
// at most explainChunk, and, whatever the thread count, the block's largest tensors
// over the networks that run at once, and its parts, within explainBudget values — so
// that more threads take smaller blocks, not more memory.
func TestExplainChunkOf(t *testing.T) {
	for _, sizes := range [][]int{{3, 32, 16, 8}, {50, 32, 16, 8}, {100, 64, 32, 16}, {2000, 32, 16, 8}} {
		d, wide := sizes[0], slices.Max(sizes)
		for _, part := range []torch.Part{torch.DistanceOcclusion, torch.ReconstructionOcclusion, torch.DistancePart, torch.ReconstructionPart} {
			for _, threads := range []int{1, 2, 8, 64} {
				const nets = 10
				rows := explainChunkOf(sizes, nets, threads, part)
				perRow := 4 * (sizes[0] + sizes[1] + sizes[2] + sizes[3])
				if part == torch.DistanceOcclusion || part == torch.ReconstructionOcclusion {
					perRow = (d + 1) * max(wide, d)
				}
				held := rows * (min(nets, threads)*perRow + nets*d)
				if rows < 1 || rows > explainChunk || rows > 1 && held > explainBudget {
					t.Errorf("sizes %v, part %d, %d threads: %d rows a block hold %d values; the budget is %d", sizes, part, threads, rows, held, explainBudget)
				}
			}
		}
	}
}
