package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Inputs that claim more than they hold, through the binary: each is read, or refused
// with one line and exit status 1, never Go's out-of-memory crash (exit 2).

// udoccLimited runs the binary in dir under an address-space limit of limitKiB
// (ulimit -v), with stdin from stdin when it is not nil and TMPDIR set to tmp. glibc's
// malloc arenas are capped so that the limit does not depend on the number of CPUs.
func udoccLimited(t *testing.T, dir, tmp string, limitKiB int, stdin []byte, args ...string) result {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", `ulimit -v "$0" && exec "$@"`, strconv.Itoa(limitKiB), udoccBin}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MALLOC_ARENA_MAX=2", "TMPDIR="+tmp)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return result{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}

// TestInputsThatClaimMore runs, under a 6 GiB address-space limit, files that main at
// 4d44810 sized by what they claim: 5 rows of 1,000 columns and 2·10^6 blank lines (an
// 8 GB table asked for at once), the same gzipped and through stdin (whose spooled copy
// must not be left in TMPDIR), a .gz of one 256 MB line, /dev/zero, and a demo of
// 2·10^9 rows. Rows are read; the rest are refused with one line, exit status 1.
func TestInputsThatClaimMore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var wide strings.Builder
	for i := range 5 {
		for j := range 1000 {
			if j > 0 {
				wide.WriteByte(',')
			}
			wide.WriteString(strconv.Itoa((i*j)%97 + i))
		}
		wide.WriteByte('\n')
	}
	blank := wide.String() + strings.Repeat("\n", 2_000_000)
	writeText(t, dir, "blank.csv", blank)
	writeGzip(t, filepath.Join(dir, "blank.csv.gz"), []byte(blank))
	writeGzip(t, filepath.Join(dir, "line.csv.gz"), bytes.Repeat([]byte("1,"), 128<<20))
	short := []string{"--screen-epochs", "1", "--pretrain-epochs", "1", "--epochs", "1", "--quiet"}
	cases := []struct {
		name  string
		stdin []byte
		args  []string
		code  int
		want  string
	}{
		{"blank lines", nil, append([]string{"fit", "blank.csv", "--out", "o1"}, short...), 0, ""},
		{"blank lines gzipped", nil, append([]string{"fit", "blank.csv.gz", "--out", "o2"}, short...), 0, ""},
		{"blank lines on stdin", []byte(blank), append([]string{"fit", "-", "--format", "csv", "--out", "o3"}, short...), 0, ""},
		{"one line of 256 MB gzipped", nil, []string{"fit", "line.csv.gz", "--out", "o4"}, 1, "line 1: more than 1048576 cells"},
		{"a bad table on stdin", bytes.Repeat([]byte("1,"), 4<<20), []string{"fit", "-", "--format", "csv", "--out", "o5"}, 1, "data: -: line 1: more than 1048576 cells"},
		{"/dev/zero", nil, []string{"fit", "/dev/zero", "--format", "csv", "--out", "o6"}, 1, "line 1: more than 32 MiB before its end"},
		{"demo of 2e9 rows", nil, []string{"demo", "--rows", "2000000000", "--out", "o7"}, 1, "more than the"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "/dev/zero" {
				if _, err := os.Stat("/dev/zero"); err != nil {
					t.Skip("no /dev/zero")
				}
			}
			tmp := t.TempDir()
			r := udoccLimited(t, dir, tmp, 6<<20, c.stdin, c.args...)
			if c.code == 0 {
				if r.code != 0 {
					t.Fatalf("exit %d: %s", r.code, r.stderr)
				}
			} else {
				oneErrorLine(t, r, c.code, c.want)
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("%d files left in TMPDIR, %s first", len(left), left[0].Name())
			}
		})
	}
}

func writeGzip(t *testing.T, path string, text []byte) {
	t.Helper()
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	zw.Write(text)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTableMessages: one data row, a delimiter that cannot be told (and --delimiter,
// which settles it), np.savetxt's default text, a 1 MB cell (quoted short), a text
// column named like a label.
func TestTableMessages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeText(t, dir, "one.csv", "a,b,c\n1,2,3\n")
	writeText(t, dir, "mixed.csv", "x;y,z\n"+strings.Repeat("1;2,3\n4;5,6\n", 20))
	var savetxt strings.Builder
	for i := range 40 {
		for j := range 3 {
			if j > 0 {
				savetxt.WriteByte(' ')
			}
			savetxt.WriteString(strconv.Itoa(i*(j+1)%17) + ".000000000000000000e+00")
		}
		savetxt.WriteByte('\n')
	}
	writeText(t, dir, "savetxt.txt", savetxt.String())
	writeText(t, dir, "bigcell.csv", "a,b\n1,"+strings.Repeat("z", 1<<20)+"\n2,3\n")
	writeText(t, dir, "class.csv", "a,class\n"+strings.Repeat("1,normal\n2,attack\n", 10))

	oneErrorLine(t, udocc(t, dir, fitArgs("--out", "o1", "one.csv")...), 1, "udocc needs at least 2 rows; one.csv has 1")
	oneErrorLine(t, udocc(t, dir, fitArgs("--out", "o2", "mixed.csv")...), 1, "set it with --delimiter")
	mustUdocc(t, dir, fitArgs("--out", "o3", "--delimiter", ",", "--drop-text", "mixed.csv")...)
	oneErrorLine(t, udocc(t, dir, fitArgs("--out", "o4", "--delimiter", "|", "mixed.csv")...), 2, `--delimiter "|"`)
	r := mustUdocc(t, dir, fitArgs("--out", "o5", "savetxt.txt")...)
	if !strings.Contains(r.stdout, "40 rows x 3 features") {
		t.Errorf("savetxt.txt: %s", r.stdout)
	}
	r = udocc(t, dir, fitArgs("--out", "o6", "bigcell.csv")...)
	oneErrorLine(t, r, 1, "(1048576 bytes)")
	if len(r.stderr) > 1000 {
		t.Errorf("a message of %d bytes", len(r.stderr))
	}
	oneErrorLine(t, udocc(t, dir, fitArgs("--out", "o7", "class.csv")...), 1, "--label class")
}

// TestModelJSONNotRegular: score refuses a model.json that is a link to /dev/zero
// instead of reading it without end.
func TestModelJSONNotRegular(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	writeTable(t, filepath.Join(dir, "t.csv"), 60, 3, false, 1)
	mustUdocc(t, dir, fitArgs("--out", "fitted", "t.csv")...)
	meta := filepath.Join(dir, "fitted", "model", "model.json")
	if err := os.Remove(meta); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", meta); err != nil {
		t.Fatal(err)
	}
	oneErrorLine(t, udocc(t, dir, "score", "--model", "fitted/model", "--out", "s", "t.csv"), 1, "not a regular file")
}
