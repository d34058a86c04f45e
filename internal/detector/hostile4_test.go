package detector_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/udocc/udocc/internal/detector"
)

// TestHiddenWidthsCheckedAgainstMemory checks that layer widths whose networks cannot
// fit in memory are refused before any is built, with the need named (hostile round 4,
// B4: --arch 1000000000,1 allocated until the OOM killer fired).
func TestHiddenWidthsCheckedAgainstMemory(t *testing.T) {
	rows := table(40, 3, 1)
	for _, hidden := range [][]int{{10_000_000_000, 1}, {200_000_000, 1}, {1 << 62, 1 << 62}} {
		o := quick()
		o.Hidden = hidden
		m, err := detector.Fit(context.Background(), rows, nil, o)
		if err == nil {
			m.Close()
			t.Fatalf("Hidden %v: fitted", hidden)
		}
		if !strings.Contains(err.Error(), "Hidden") || !strings.Contains(err.Error(), "more than the") {
			t.Fatalf("Hidden %v: error %v, want the networks' need against the memory available", hidden, err)
		}
	}
}

// TestEmptyHiddenRefused checks that Options.Hidden set to an empty list is refused by
// Validate, as nil is the default (hostile round 4, L25).
func TestEmptyHiddenRefused(t *testing.T) {
	if err := detector.Validate(nil, detector.Options{Hidden: []int{}}); err == nil || !strings.Contains(err.Error(), "Hidden") {
		t.Fatalf("Validate: %v", err)
	}
}

// logBuffer is a slog text handler's output, safe for the handler's goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServeRefusalsKeepValuesOut checks that a refused request's cell values reach
// neither the log nor, for an unscorable row, the response (with the model's training
// center), and that the unscorable row's column is the model's own name (hostile round
// 4, L1 and L2: an SSN was logged, and the column was called "x1").
func TestServeRefusalsKeepValuesOut(t *testing.T) {
	_, dir, _ := namedModel(t, 1)
	var log logBuffer
	h, err := loadHandler(detector.HandlerOptions{Dir: dir, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, c := range []struct {
		ct, body, secret string
		status           int
		column           string
	}{
		{"application/json", `{"rows":[["SSN 078-05-1120",0,0]]}`, "078-05-1120", 400, "a"},
		{"text/csv", "a,b,c\n0,4111-1111-1111-1111,0\n", "4111-1111", 400, "b"},
		{"application/json", `{"rows":[[0,0,0],[0,0,3.25e38]]}`, "3.25e+38", 422, "c"},
	} {
		code, out := post(t, srv.Client(), srv.URL+"/v1/score", c.ct, c.body)
		if code != c.status || out.Error == nil || out.Error.Column != c.column {
			t.Fatalf("%s: status %d error %+v; want %d naming column %s", c.body, code, out.Error, c.status, c.column)
		}
		if code == 422 && (strings.Contains(out.Error.Message, "e+38") || strings.Contains(out.Error.Message, "center") || out.Error.Row != 2) {
			t.Errorf("422 message %q row %d: want neither the value nor the training center, and row 2", out.Error.Message, out.Error.Row)
		}
		if strings.Contains(log.String(), c.secret) {
			t.Errorf("the log holds %q:\n%s", c.secret, log.String())
		}
	}
}

// TestServeUnscorableRowNamed checks that the unscorable row of a request is named by
// the score's error itself (detector.UnscorableError), the last of a full chunk included
// (hostile round 4, L12: the chunk was scored again row by row to find it).
func TestServeUnscorableRowNamed(t *testing.T) {
	m, dir, _ := namedModel(t, 1)
	rows := table(4096, 3, 2)
	rows[4095][1] = 3e38
	_, err := m.Score(context.Background(), rows)
	var ue *detector.UnscorableError
	if !errors.As(err, &ue) || !errors.Is(err, detector.ErrUnscorable) || ue.Row != 4096 || ue.Column != "b" {
		t.Fatalf("Score: %v (%+v); want an UnscorableError at row 4096, column b", err, ue)
	}
	h, err := loadHandler(detector.HandlerOptions{Dir: dir, Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	code, out := post(t, srv.Client(), srv.URL+"/v1/score", "application/json", jsonRows(rows))
	if code != 422 || out.Error.Row != 4096 || out.Error.Column != "b" {
		t.Fatalf("status %d error %+v", code, out.Error)
	}
}

// TestServeBearerSchemeAnyCase checks that the Authorization scheme is matched without
// regard to case, as RFC 7235 has it (hostile round 4, L6).
func TestServeBearerSchemeAnyCase(t *testing.T) {
	_, dir, rows := namedModel(t, 1)
	h, err := loadHandler(detector.HandlerOptions{Dir: dir, Token: "s3cret-token", Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, auth := range []string{"bearer s3cret-token", "BEARER s3cret-token", "Bearer  s3cret-token"} {
		if code, out := post(t, srv.Client(), srv.URL+"/v1/score", "application/json", jsonRows(rows[:2]), "Authorization", auth); code != 200 {
			t.Errorf("%q: status %d %+v", auth, code, out.Error)
		}
	}
	for _, auth := range []string{"Basic s3cret-token", "bearers3cret-token", "s3cret-token"} {
		if code, _ := post(t, srv.Client(), srv.URL+"/v1/score", "application/json", jsonRows(rows[:2]), "Authorization", auth); code != 401 {
			t.Errorf("%q: status %d, want 401", auth, code)
		}
	}
}

// TestServeRefusalLogBounded checks that a flood of refused requests writes a bounded
// number of log lines, the rest counted in a later line (hostile round 4, L9: every
// 401 was a line).
func TestServeRefusalLogBounded(t *testing.T) {
	_, dir, rows := namedModel(t, 1)
	var log logBuffer
	h, err := loadHandler(detector.HandlerOptions{Dir: dir, Token: "s3cret-token", Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	for range 200 {
		post(t, srv.Client(), srv.URL+"/v1/score", "application/json", jsonRows(rows[:1]), "Authorization", "Bearer wrong")
	}
	if n := strings.Count(log.String(), "request refused"); n == 0 || n > 20 {
		t.Fatalf("%d log lines for 200 refusals:\n%.2000s", n, log.String())
	}
}

// TestServeRefusesEncodings checks that a compressed body, or a charset other than
// UTF-8, is refused with 415 instead of being read as UTF-8 JSON (hostile round 4, L5).
func TestServeRefusesEncodings(t *testing.T) {
	_, dir, rows := namedModel(t, 1)
	h, err := loadHandler(detector.HandlerOptions{Dir: dir, Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	body := jsonRows(rows[:2])
	for _, c := range []struct {
		ct     string
		header []string
		status int
	}{
		{"application/json", []string{"Content-Encoding", "gzip"}, 415},
		{"application/json; charset=utf-16", nil, 415},
		{"text/csv; charset=latin1", nil, 415},
		{"application/json; charset=UTF-8", nil, 200},
		{"application/json", []string{"Content-Encoding", "identity"}, 200},
	} {
		code, out := post(t, srv.Client(), srv.URL+"/v1/score", c.ct, body, c.header...)
		if code != c.status {
			t.Errorf("%s %v: status %d %+v, want %d", c.ct, c.header, code, out.Error, c.status)
		}
	}
}

// TestServeKeepsPathsOut checks that GET /v1/model and a refused reload do not show the
// server's folders (hostile round 4, L8), while the log keeps the reload's reason.
func TestServeKeepsPathsOut(t *testing.T) {
	_, dir, _ := namedModel(t, 1)
	var log logBuffer
	h, err := loadHandler(detector.HandlerOptions{Dir: dir, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/v1/model")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if bytes.Contains(b, []byte(dir)) || bytes.Contains(b, []byte(`"dir"`)) {
		t.Errorf("GET /v1/model shows the folder: %s", b)
	}
	if err := os.Remove(filepath.Join(dir, "model.json")); err != nil {
		t.Fatal(err)
	}
	resp, err = srv.Client().Post(srv.URL+"/v1/reload", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 422 || bytes.Contains(b, []byte(dir)) {
		t.Errorf("reload: status %d body %s", resp.StatusCode, b)
	}
	if !strings.Contains(log.String(), "model.json") {
		t.Errorf("the log does not say why the reload was refused:\n%s", log.String())
	}
}

// TestSaveEdgeCases checks that Save refuses an empty folder name (hostile round 4,
// L23: Save("") replaced the working directory) and a folder inside another model's
// folder (L29: the inner one then blocked saving the outer), and that concurrent Saves
// to different folders do not race (L24; run with -race).
func TestSaveEdgeCases(t *testing.T) {
	m, dir, rows := namedModel(t, 1)
	base := t.TempDir()
	t.Chdir(t.TempDir()) // empty, as the audit's
	if err := m.Save(""); err == nil {
		t.Error(`Save("") succeeded`)
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = m.Save(filepath.Join(base, fmt.Sprintf("m%d", i)))
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		m.Score(context.Background(), rows[:10])
	}()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Save %d: %v", i, err)
		}
	}
	if err := m.Save(filepath.Join(dir, "sub")); err == nil {
		t.Errorf("Save inside the model folder %s succeeded", dir)
	}
	if err := m.Save(dir); err != nil {
		t.Errorf("saving the model folder again: %v", err)
	}
}

// TestExplainNilDataset checks that ExplainDataset of a nil table is an error, as
// Score's of no rows is (hostile round 4, L25: it panicked).
func TestExplainNilDataset(t *testing.T) {
	m, _, _ := namedModel(t, 1)
	if _, err := m.ExplainDataset(context.Background(), nil, []int{-1}, detector.ExplainOptions{}); err == nil {
		t.Fatal("ExplainDataset(nil) succeeded")
	}
}

// TestBatchSizeBlamed checks that a BatchSize too large for the ensemble's default
// sample is refused naming BatchSize, not TrainRows (hostile round 4, L19).
func TestBatchSizeBlamed(t *testing.T) {
	if err := detector.Validate(nil, detector.Options{BatchSize: 1e9}); err == nil || !strings.Contains(err.Error(), "Options.BatchSize:") {
		t.Fatalf("Validate: %v", err)
	}
}

// TestLoadWrongFolder checks Load's message for a fit's --out folder (it names the
// model/ folder inside) and for a folder that does not exist (hostile round 4, L26:
// both read "not a udocc model of this format").
func TestLoadWrongFolder(t *testing.T) {
	_, dir, _ := namedModel(t, 1)
	out := filepath.Dir(dir) // dir is out/model, as fit writes it
	for _, c := range []struct{ dir, want string }{
		{out, "use " + dir},
		{filepath.Join(out, "nowhere"), "no such folder"},
	} {
		_, err := detector.Load(c.dir, "cpu")
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "of this format") {
			t.Errorf("Load(%s): %v; want %q", c.dir, err, c.want)
		}
	}
}

// TestTooWideRefusedBeforeTraining checks that a table whose model.json would be larger
// than a model may have is refused before training starts (hostile round 4, B3: fit
// trained, then saved 310 MB that no command loaded). The limit is lowered to 256 KiB
// (detector.SetMaxModelBytes), so that a table of 2,000 columns meets it.
func TestTooWideRefusedBeforeTraining(t *testing.T) {
	defer detector.SetMaxModelBytes(256 << 10)()
	rows := table(40, 2000, 3)
	o := quick()
	trained := false
	o.Progress = func(string, int, int) { trained = true }
	m, err := detector.Fit(context.Background(), rows, nil, o)
	if err == nil {
		m.Close()
		t.Fatal("fitted")
	}
	if trained || !strings.Contains(err.Error(), "model.json") {
		t.Fatalf("trained %v, error %v; want a refusal before training", trained, err)
	}
}
