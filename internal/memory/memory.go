// Package memory refuses an allocation larger than the memory left to hold it, before it
// is made, rather than letting the process end when it fails: the table readers of
// package data and the udocc command check with Check. It is not an allocator and keeps
// no state.
package memory

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ErrNoMemory reports a table larger than the memory left to hold it: it is refused
// before it is allocated, rather than ending the process when the allocation fails.
var ErrNoMemory = errors.New("not enough memory")

// Check reports ErrNoMemory when bytes more cannot be allocated: more than the
// memory the system has available (MemAvailable, or the room left under the cgroup's
// memory.max where that is lower), or than the address space left under RLIMIT_AS
// (ulimit -v). what names the allocation in the error. Where none of these can be read
// (not Linux), nothing is refused.
func Check(what string, bytes int64) error {
	if bytes < 0 {
		bytes = math.MaxInt64
	}
	avail, ok := Available()
	if !ok || bytes <= avail {
		return nil
	}
	return fmt.Errorf("%s needs %s, more than the %s of memory available: %w", what, byteSize(bytes), byteSize(avail), ErrNoMemory)
}

// Available is the least of MemAvailable, the cgroup's memory.max less its
// memory.current, and RLIMIT_AS less the address space in use.
func Available() (int64, bool) {
	avail, ok := int64(math.MaxInt64), false
	if kb, found := procField("/proc/meminfo", "MemAvailable:"); found {
		avail, ok = min(avail, kb<<10), true
	}
	if max, err := readInt("/sys/fs/cgroup/memory.max"); err == nil {
		if cur, err := readInt("/sys/fs/cgroup/memory.current"); err == nil && cur <= max {
			avail, ok = min(avail, max-cur), true
		}
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err == nil && lim.Cur < math.MaxInt64 {
		if kb, found := procField("/proc/self/status", "VmSize:"); found && kb<<10 <= int64(lim.Cur) {
			avail, ok = min(avail, int64(lim.Cur)-kb<<10), true
		}
	}
	return avail, ok
}

// procField reads the number of kB on the line of a /proc file that starts with key.
func procField(path, key string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), key); ok {
			v, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return v, err == nil
		}
	}
	return 0, false
}

// readInt reads a file holding one integer ("max", cgroup's "no limit", is an error).
func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}

// byteSize spells a size in MiB or GiB, to one decimal.
func byteSize(b int64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}
