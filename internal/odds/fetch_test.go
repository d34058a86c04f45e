package odds

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// toySet returns random file content and its registry entry.
func toySet(seed uint64) ([]byte, Set) {
	rng := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, 10000+rng.IntN(1000))
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	sum := sha256.Sum256(b)
	return b, Set{Name: "toy", File: "toy.mat", Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:])}
}

// toyServer serves content in one of several modes and records the Range
// header of each request.
type toyServer struct {
	t       *testing.T
	content []byte
	mu      sync.Mutex
	mode    string // "range", "norange", "cut-once", "short-once", "404" or "none"
	ranges  []string
}

func (s *toyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	mode := s.mode
	if strings.HasSuffix(mode, "-once") {
		s.mode = "range"
	}
	s.mu.Unlock()
	switch mode {
	case "range":
		http.ServeContent(w, r, "toy.mat", time.Time{}, bytes.NewReader(s.content))
	case "norange":
		w.Write(s.content)
	case "cut-once":
		// Promise the whole file, send half, and drop the connection.
		w.Header().Set("Content-Length", strconv.Itoa(len(s.content)))
		w.Write(s.content[:len(s.content)/2])
		panic(http.ErrAbortHandler)
	case "short-once":
		// No length promised: a clean end after half the file.
		w.Write(s.content[:len(s.content)/2])
	case "404":
		http.NotFound(w, r)
	default:
		s.t.Errorf("unexpected request for %s", r.URL)
		http.Error(w, "unexpected", http.StatusInternalServerError)
	}
}

func TestFetch(t *testing.T) {
	content, set := toySet(1)
	other, _ := toySet(2)
	tests := []struct {
		name string
		mode string
		// setup prepares the directory before Fetch.
		setup          func(dir string)
		wantErr        error
		wantDownloaded bool
		wantRanges     []string
	}{
		{name: "full download", mode: "range", wantDownloaded: true, wantRanges: []string{""}},
		{
			name: "resume a partial .part", mode: "range",
			setup:          func(dir string) { write(t, dir, "toy.mat.part", content[:4000]) },
			wantDownloaded: true, wantRanges: []string{"bytes=4000-"},
		},
		{
			name: "server ignores Range", mode: "norange",
			setup:          func(dir string) { write(t, dir, "toy.mat.part", content[:4000]) },
			wantDownloaded: true, wantRanges: []string{"bytes=4000-"},
		},
		{
			name: "corrupt .part is resumed, fails, and is fetched again", mode: "range",
			setup:          func(dir string) { write(t, dir, "toy.mat.part", other[:4000]) },
			wantDownloaded: true, wantRanges: []string{"bytes=4000-", ""},
		},
		{
			name: "complete .part is only verified", mode: "none",
			setup:          func(dir string) { write(t, dir, "toy.mat.part", content) },
			wantDownloaded: true,
		},
		{
			name: ".part longer than the file restarts", mode: "range",
			setup:          func(dir string) { write(t, dir, "toy.mat.part", append(slices.Clone(content), 0)) },
			wantDownloaded: true, wantRanges: []string{""},
		},
		{
			name: "hand-placed file is verified, not downloaded", mode: "none",
			setup: func(dir string) { write(t, dir, "toy.mat", content) },
		},
		{
			name: "hand-placed wrong file is an error", mode: "none",
			setup:   func(dir string) { write(t, dir, "toy.mat", other) },
			wantErr: ErrChecksum,
		},
		{name: "HTTP 404", mode: "404", wantErr: errors.New("HTTP 404"), wantRanges: []string{""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := &toyServer{t: t, content: content, mode: tc.mode}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			dir := t.TempDir()
			if tc.setup != nil {
				tc.setup(dir)
			}
			var progress bytes.Buffer
			res, err := fetchSets(t.Context(), FetchOptions{Dir: dir, BaseURL: ts.URL, Progress: &progress}, []Set{set})
			t.Logf("progress:\n%s", progress.String())
			if !slices.Equal(srv.ranges, tc.wantRanges) {
				t.Errorf("Range headers %q, want %q", srv.ranges, tc.wantRanges)
			}
			if tc.wantErr != nil {
				if err == nil || !errors.Is(err, tc.wantErr) && !strings.Contains(err.Error(), tc.wantErr.Error()) {
					t.Fatalf("error %v, want %v", err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), "toy.mat") {
					t.Errorf("error %q does not name the file", err)
				}
				if _, err := os.Stat(filepath.Join(dir, "toy.mat.part")); err == nil {
					t.Error(".part left behind")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != 1 || res[0].Downloaded != tc.wantDownloaded {
				t.Errorf("results %+v, want Downloaded %v", res, tc.wantDownloaded)
			}
			got, err := os.ReadFile(filepath.Join(dir, "toy.mat"))
			if err != nil || !bytes.Equal(got, content) {
				t.Errorf("file differs from the served content (err %v)", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "toy.mat.part")); err == nil {
				t.Error(".part left behind")
			}
		})
	}
}

func TestFetchBadHashLeavesNothing(t *testing.T) {
	content, set := toySet(3)
	set.SHA256 = strings.Repeat("0", 64)
	ts := httptest.NewServer(&toyServer{t: t, content: content, mode: "range"})
	defer ts.Close()
	dir := t.TempDir()
	_, err := fetchSets(t.Context(), FetchOptions{Dir: dir, URLs: map[string]string{"toy": ts.URL + "/x"}}, []Set{set})
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("error %v, want ErrChecksum", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestFetchResumesAfterCut ends the first response halfway, dropping the
// connection or closing the body cleanly; the .part must be kept and the
// next Fetch must resume from it.
func TestFetchResumesAfterCut(t *testing.T) {
	for _, mode := range []string{"cut-once", "short-once"} {
		t.Run(mode, func(t *testing.T) {
			content, set := toySet(4)
			srv := &toyServer{t: t, content: content, mode: mode}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			dir := t.TempDir()
			opts := FetchOptions{Dir: dir, BaseURL: ts.URL + "/"}
			_, err := fetchSets(t.Context(), opts, []Set{set})
			if err == nil || !strings.Contains(err.Error(), "kept for resuming") {
				t.Fatalf("error %v, want one saying the partial file is kept", err)
			}
			fi, err := os.Stat(filepath.Join(dir, "toy.mat.part"))
			if err != nil || fi.Size() == 0 || fi.Size() >= set.Size {
				t.Fatalf("partial file: %v, %v", fi, err)
			}
			if _, err := fetchSets(t.Context(), opts, []Set{set}); err != nil {
				t.Fatal(err)
			}
			want := []string{"", "bytes=" + strconv.FormatInt(fi.Size(), 10) + "-"}
			if !slices.Equal(srv.ranges, want) {
				t.Errorf("Range headers %q, want %q", srv.ranges, want)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "toy.mat")); !bytes.Equal(got, content) {
				t.Error("resumed file differs")
			}
		})
	}
}

func TestFetchOptionsErrors(t *testing.T) {
	if _, err := Fetch(t.Context(), FetchOptions{Dir: t.TempDir(), Names: []string{"shuttle"}}); !errors.Is(err, ErrUnknownSet) {
		t.Errorf("unknown name: %v, want ErrUnknownSet", err)
	}
	if _, err := Fetch(t.Context(), FetchOptions{}); !errors.Is(err, ErrOptions) {
		t.Errorf("no dir: %v, want ErrOptions", err)
	}
}

// TestFetchODDSFromMirror serves the shared ODDS folder as a mirror and
// fetches the real registry from it, through the exported API.
func TestFetchODDSFromMirror(t *testing.T) {
	src := FindDir()
	if src == "" {
		t.Skip("ODDS folder not found: set UDOCC_DATA or place the files in shared/data/odds beside the checkout")
	}
	ts := httptest.NewServer(http.FileServer(http.Dir(src)))
	defer ts.Close()
	dir := t.TempDir()
	res, err := Fetch(t.Context(), FetchOptions{Dir: dir, BaseURL: ts.URL, Names: []string{"glass", "pima"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Set.Name != "glass" || !res[0].Downloaded || !res[1].Downloaded {
		t.Fatalf("results %+v", res)
	}
	// Already present now: verified, no request needed.
	ts.Close()
	res, err = Fetch(t.Context(), FetchOptions{Dir: dir, BaseURL: ts.URL, Names: []string{"glass"}})
	if err != nil || res[0].Downloaded {
		t.Fatalf("second fetch: %+v, %v", res, err)
	}
}

func TestFindDataDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("UDOCC_DATA", dir)
	if got := FindDir(); got != dir {
		t.Errorf("with UDOCC_DATA: %q, want %q", got, dir)
	}
	corpus := t.TempDir() // the corpus's layout: UDOCC_DATA/odds
	os.Mkdir(filepath.Join(corpus, "odds"), 0o755)
	t.Setenv("UDOCC_DATA", corpus)
	if got, want := FindDir(), filepath.Join(corpus, "odds"); got != want {
		t.Errorf("with UDOCC_DATA a corpus: %q, want %q", got, want)
	}
	t.Setenv("UDOCC_DATA", filepath.Join(dir, "missing"))
	if got := FindDir(); got != "" {
		t.Errorf("with UDOCC_DATA missing: %q, want \"\"", got)
	}
	t.Setenv("UDOCC_DATA", "")
	root := t.TempDir()
	odds := filepath.Join(root, "shared", "data", "odds")
	pkg := filepath.Join(root, "main", "data")
	for _, d := range []string{odds, pkg} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(pkg)
	if got := FindDir(); got != odds {
		t.Errorf("from %s: %q, want %q", pkg, got, odds)
	}
}

func write(t *testing.T, dir, name string, b []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
