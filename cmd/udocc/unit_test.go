package main

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	lib "github.com/udocc/udocc/internal/detector"
)

func TestParseSeeds(t *testing.T) {
	cases := []struct {
		in   string
		want []uint64 // nil: a usage error
	}{
		{"0", []uint64{0}},
		{"7", []uint64{7}},
		{"0-2", []uint64{0, 1, 2}},
		{"1,4,7", []uint64{1, 4, 7}},
		{"0-1, 5", []uint64{0, 1, 5}},
		{"3-3", []uint64{3}},
		{"", nil},
		{"abc", nil},
		{"-1", nil},
		{"3-1", nil},
		{"0-", nil},
		{"0,,1", nil},
		{"0-2000", nil},
		{"4,4", nil},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := parseSeeds("seed", c.in)
			var ue usageError
			switch {
			case c.want == nil && !errors.As(err, &ue):
				t.Errorf("parseSeeds(%q) = %v, %v; want a usage error", c.in, got, err)
			case c.want != nil && (err != nil || !slices.Equal(got, c.want)):
				t.Errorf("parseSeeds(%q) = %v, %v; want %v", c.in, got, err, c.want)
			}
		})
	}
}

func TestCheckDevice(t *testing.T) {
	cases := []struct {
		dev string
		ok  bool
	}{
		{"cpu", true}, {"cuda", true}, {"cuda:0", true}, {"cuda:12", true},
		{"", false}, {"CPU", false}, {"gpu", false}, {"cuda:", false}, {"cuda:-1", false},
		{"cuda:x", false}, {"cpu:0", false}, {"cuda:0 ", false},
	}
	for _, c := range cases {
		t.Run(c.dev, func(t *testing.T) {
			err := checkDevice(c.dev)
			var ue usageError
			if c.ok != (err == nil) || (err != nil && !errors.As(err, &ue)) {
				t.Errorf("checkDevice(%q) = %v, want ok %v (or a usage error)", c.dev, err, c.ok)
			}
		})
	}
}

func TestOneLine(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain", "plain"},
		{"torch: shape mismatch\nException raised from forward\n", "torch: shape mismatch; Exception raised from forward"},
		{"a\r\n\n  b  ", "a; b"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			if got := oneLine(errors.New(c.in)); got != c.want {
				t.Errorf("oneLine(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// TestProgressBar checks the two forms of progress: a bar redrawn in place on a terminal,
// plain lines at a stage's first and last epochs (and every 10 s) otherwise, and nothing
// when quiet.
func TestProgressBar(t *testing.T) {
	cases := []struct {
		name       string
		tty, quiet bool
		want       []string // in the output, in order
		lines      int      // newlines in the output
	}{
		{"terminal: one bar redrawn, ended by a newline", true, false,
			[]string{"\r\033[Kfinetune        [=  ", "]   1/20", "\r\033[Kfinetune        [" + strings.Repeat("=", 30) + "]  20/20"}, 1},
		{"no terminal: the first and last epochs' lines (a stage of under 10 s)", false, false,
			[]string{"finetune epoch 1/20", "finetune epoch 20/20"}, 2},
		{"quiet: nothing", false, true, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			p := &progress{w: &b, tty: c.tty, quiet: c.quiet, start: time.Now()}
			for e := 1; e <= 20; e++ {
				p.update("finetune", e, 20)
			}
			out := b.String()
			rest := out
			for _, w := range c.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output %q lacks %q (in order)", out, w)
				}
				rest = rest[i+len(w):]
			}
			if n := strings.Count(out, "\n"); n != c.lines {
				t.Errorf("%d lines, want %d: %q", n, c.lines, out)
			}
			if c.quiet && out != "" {
				t.Errorf("quiet, but %q", out)
			}
		})
	}
}

func TestParseHidden(t *testing.T) {
	h, err := parseHidden("64, 32,16")
	if err != nil || !slices.Equal(h, []int{64, 32, 16}) {
		t.Fatalf("parseHidden = %v, %v", h, err)
	}
	for _, bad := range []string{"", "32,,8", "32,0", "a,b", "-4"} {
		if _, err := parseHidden(bad); err == nil {
			t.Errorf("parseHidden(%q) gave no error", bad)
		}
	}
}

// TestThresholdRules: --threshold names the ensemble's count rules, several joined by
// "+", in their order.
func TestThresholdRules(t *testing.T) {
	for in, want := range map[string][]lib.CountRule{
		"mad":            {"mad"},
		"kmeans+gmm-bic": {"kmeans", "gmm-bic"},
	} {
		var o fitOptions
		fs := newFlags("fit", "", "", io.Discard)
		addFitFlags(fs, &o)
		if err := fs.Parse([]string{"--threshold", in}); err != nil {
			t.Fatal(err)
		}
		if err := o.check(fs); err != nil || !slices.Equal(o.Count, want) {
			t.Errorf("--threshold %s: Count %v, %v; want %v", in, o.Count, err, want)
		}
	}
}
