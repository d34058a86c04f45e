package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/udocc/udocc/data"
	lib "github.com/udocc/udocc/internal/detector"
)

// checkRankRows reads the table at path as the ranks will, before any starts, and
// refuses --nproc n where a rank would hold fewer than the two rows BatchNorm needs: one
// usage error here, not one error a rank (a table that cannot be read is one error
// too). The launcher's memory is handed back before the ranks start.
func checkRankRows(path string, n int, f inputFlags, t tableFlags) error {
	in, err := loadTable(path, f, t, t.selection())
	if err != nil {
		return err
	}
	rows := in.ds.N
	in.remove()
	debug.FreeOSMemory()
	if rows < 2*n {
		return usagef("--nproc %d: %s has %d rows, and every rank needs at least 2 (its minibatches' BatchNorm): use at most %d ranks",
			n, path, rows, max(1, rows/2))
	}
	return nil
}

// launchRanks is `udocc fit --nproc n` (torchrun --standalone's case): it starts n
// processes of this binary on this machine, each `udocc fit` with the same flags as one
// rank of a data-parallel run (the torchrun variables set, rank 0's TCPStore on a free
// port of 127.0.0.1), and waits for all. Rank 0's stdout is this one's; every rank's
// stderr is this one's (the other ranks run --quiet). A rank that fails makes the others
// fail within --dist-timeout, usually at once.
func launchRanks(n int, args []string, stdout, stderr io.Writer) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("--nproc: finding a free port for rank 0's store: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var cmds []*exec.Cmd
	for r := 0; r < n; r++ {
		cmd := exec.Command(self, append([]string{"fit"}, withoutNproc(args)...)...)
		cmd.Env = append(os.Environ(), "MASTER_ADDR=127.0.0.1", "MASTER_PORT="+strconv.Itoa(port),
			"RANK="+strconv.Itoa(r), "WORLD_SIZE="+strconv.Itoa(n))
		cmd.Stdout, cmd.Stderr = io.Discard, stderr
		if r == 0 {
			cmd.Stdout = stdout
		}
		if err := cmd.Start(); err != nil {
			for _, c := range cmds {
				_ = c.Process.Kill()
				_ = c.Wait()
			}
			return fmt.Errorf("--nproc: starting rank %d: %w", r, err)
		}
		cmds = append(cmds, cmd)
	}
	var failed []string
	code := 0
	for r, c := range cmds {
		if err := c.Wait(); err != nil {
			failed = append(failed, fmt.Sprintf("rank %d: %v", r, err))
			var ee *exec.ExitError
			if code == 0 && errors.As(err, &ee) && ee.ExitCode() == 2 {
				code = 2
			}
		}
	}
	if len(failed) > 0 {
		err := fmt.Errorf("--nproc %d: %s", n, strings.Join(failed, "; "))
		if code == 2 {
			return usageError{err}
		}
		return err
	}
	return nil
}

// The bounds of --nproc: ranks beyond a few a core only wait on each other, and each
// is a process that loads libtorch. The rows decide too: every rank must hold
// two (the detector's minRankRows), which the ranks check once they have read the table.
const (
	ranksPerCore = 4
	maxNproc     = 64
)

// maxRanks is the most ranks --nproc starts on this machine.
func maxRanks() int { return min(maxNproc, ranksPerCore*runtime.NumCPU()) }

// withoutNproc drops --nproc and its value from args.
func withoutNproc(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--nproc":
			i++
		case strings.HasPrefix(a, "--nproc="):
		default:
			out = append(out, a)
		}
	}
	return out
}

// rankBlock is this rank's block of the table's rows: rows [r*n/W, (r+1)*n/W), so that
// the blocks of ranks 0, 1, ... lie one after the other. Rank 0 holds the whole table
// (its outputs need every row) and trains on its first block; any other rank read only
// its block (data.LoadOptions.Part), which ds is.
func rankBlock(ds *data.Dataset, d *lib.Dist) *data.Dataset {
	if d.Rank() != 0 {
		return ds
	}
	hi := ds.N / d.World()
	return &data.Dataset{Name: ds.Name, Path: ds.Path, N: hi, D: ds.D, X: ds.X[:hi*ds.D]}
}
