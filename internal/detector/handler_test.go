package detector_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/detector"
)

// namedModel fits quick options with seed on a synthetic table whose columns are named
// a, b, c, and saves it into a new folder.
func namedModel(t *testing.T, seed uint64) (*detector.Model, string, [][]float64) {
	t.Helper()
	rows := table(120, 3, 1)
	ds := &data.Dataset{Name: "named", N: len(rows), D: 3, Features: []string{"a", "b", "c"}, Named: true}
	for _, r := range rows {
		for _, v := range r {
			ds.X = append(ds.X, float32(v))
		}
	}
	o := quick()
	o.Seed = seed
	m, err := detector.FitDataset(context.Background(), ds, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	dir := filepath.Join(t.TempDir(), "model")
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	return m, dir, rows
}

// scoreResponse is the body of a score response.
type scoreResponse struct {
	Model     string   `json:"model"`
	Rows      int      `json:"rows"`
	Flagged   *int     `json:"flagged"`
	Threshold *float64 `json:"threshold"`
	Results   []struct {
		Score      float64  `json:"score"`
		Label      *bool    `json:"label"`
		Confidence *float64 `json:"confidence"`
		Top        []struct {
			Column string  `json:"column"`
			Part   float64 `json:"part"`
			Share  float64 `json:"share"`
		} `json:"top"`
	} `json:"results"`
	Error *struct {
		Code, Message string
		Row           int
		Column        string
	} `json:"error"`
}

// post sends body to the score endpoint of srv and decodes the answer.
func post(t *testing.T, c *http.Client, url, contentType, body string, header ...string) (int, scoreResponse) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out scoreResponse
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v: %q", url, err, b)
	}
	return resp.StatusCode, out
}

func jsonRows(rows [][]float64) string {
	b, _ := json.Marshal(map[string]any{"rows": rows})
	return string(b)
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestHandlerScore checks that rows sent as JSON arrays, as JSON objects in another
// column order and as CSV with a reordered header and an extra id-less layout score
// exactly as Model.Score scores them, with labels by the threshold, a confidence
// monotone in the score, and explanations where asked.
func TestHandlerScore(t *testing.T) {
	m, dir, rows := namedModel(t, 1)
	want, err := m.Score(context.Background(), rows[:40])
	if err != nil {
		t.Fatal(err)
	}
	h, err := loadHandler(detector.HandlerOptions{Dir: dir, Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()

	var objects, csv strings.Builder
	objects.WriteString(`{"rows":[`)
	csv.WriteString("c,a,b\n")
	for i, r := range rows[:40] {
		if i > 0 {
			objects.WriteByte(',')
		}
		fmt.Fprintf(&objects, `{"c":%v,"b":%v,"a":%v}`, r[2], r[1], r[0])
		fmt.Fprintf(&csv, "%v,%v,%v\n", r[2], r[0], r[1])
	}
	objects.WriteString("]}")
	for _, c := range []struct{ name, ct, body string }{
		{"json arrays", "application/json", jsonRows(rows[:40])},
		{"json objects", "application/json; charset=utf-8", objects.String()},
		{"csv", "text/csv", csv.String()},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out := post(t, srv.Client(), srv.URL+"/v1/score?explain=2", c.ct, c.body)
			if code != http.StatusOK {
				t.Fatalf("status %d: %+v", code, out.Error)
			}
			if out.Model != h.Info().Version || out.Rows != 40 || len(out.Results) != 40 || *out.Threshold != m.Threshold() {
				t.Fatalf("model %q rows %d results %d threshold %v", out.Model, out.Rows, len(out.Results), *out.Threshold)
			}
			flagged := 0
			for i, r := range out.Results {
				if r.Score != want[i] {
					t.Fatalf("row %d: score %v, Model.Score %v", i+1, r.Score, want[i])
				}
				if *r.Label != (r.Score > m.Threshold()) || (*r.Confidence > 0.5) != *r.Label {
					t.Errorf("row %d: score %v label %v confidence %v, threshold %v", i+1, r.Score, *r.Label, *r.Confidence, m.Threshold())
				}
				if *r.Label {
					flagged++
				}
				// At most 2 features, those that raise the score (every flagged row has one),
				// the largest part first.
				if len(r.Top) > 2 || *r.Label && len(r.Top) == 0 {
					t.Errorf("row %d: top %+v", i+1, r.Top)
				}
				for k, f := range r.Top {
					if !slices.Contains([]string{"a", "b", "c"}, f.Column) || f.Part <= 0 || k > 0 && f.Part > r.Top[k-1].Part {
						t.Errorf("row %d: top %+v", i+1, r.Top)
					}
					// A share is the part over the raising parts' sum: in (0, 1], as the parts order.
					if !(f.Share > 0 && f.Share <= 1) || k > 0 && f.Share > r.Top[k-1].Share {
						t.Errorf("row %d: shares %+v", i+1, r.Top)
					}
				}
				for _, q := range out.Results {
					if q.Score < r.Score && *q.Confidence > *r.Confidence {
						t.Fatalf("confidence not monotone in the score: %v %v against %v %v", q.Score, *q.Confidence, r.Score, *r.Confidence)
					}
				}
			}
			if flagged == 0 || *out.Flagged != flagged {
				t.Errorf("flagged %d, labels %d (the table has 4 far rows in 40)", *out.Flagged, flagged)
			}
		})
	}
}

// TestHandlerRefusals checks that every class of bad request is answered with its 4xx
// status and a JSON error naming the row and column where there is one.
func TestHandlerRefusals(t *testing.T) {
	_, dir, rows := namedModel(t, 1)
	h, err := loadHandler(detector.HandlerOptions{Dir: dir, MaxRows: 50, MaxBodyBytes: 1 << 16, Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	big := strings.Repeat("[1,2,3],", 1<<14)
	for _, c := range []struct {
		name, ct, body string
		status         int
		code           string
		row            int
		column         string
	}{
		{"empty body", "application/json", "", 400, "empty_body", 0, ""},
		{"empty rows", "application/json", `{"rows":[]}`, 400, "empty_body", 0, ""},
		{"malformed", "application/json", `{"rows":[[1,2,3]`, 400, "malformed_body", 1, ""},
		{"wrong column count", "application/json", `{"rows":[[1,2,3],[1,2]]}`, 400, "columns", 2, ""},
		{"wrong column name", "application/json", `{"rows":[{"a":1,"b":2,"d":3}]}`, 400, "columns", 1, "d"},
		{"missing column", "application/json", `{"rows":[{"a":1,"b":2}]}`, 400, "columns", 1, ""},
		{"not a number", "application/json", `{"rows":[[1,"x",3]]}`, 400, "bad_value", 1, "b"},
		{"every value null", "application/json", `{"rows":[[1,2,3],[null,null,null]]}`, 400, "bad_value", 2, ""},
		{"beyond float32", "application/json", `{"rows":[[1,2,1e39]]}`, 400, "bad_value", 1, "c"},
		{"csv Inf", "text/csv", "a,b,c\n1,2,3\n1,+Inf,3\n", 400, "bad_value", 2, "b"},
		{"csv every cell missing", "text/csv", "a,b,c\n1,2,3\n,NA,\n", 400, "bad_value", 2, ""},
		{"csv without header", "text/csv", "1,2,3\n", 400, "columns", 0, ""},
		{"csv wrong header", "text/csv", "a,b,x\n1,2,3\n", 400, "columns", 0, ""},
		{"csv ragged", "text/csv", "a,b,c\n1,2,3\n1,2\n", 400, "columns", 2, ""},
		{"unscorable", "application/json", `{"rows":[[1,2,3],[3e38,-3e38,3e38]]}`, 422, "unscorable", 2, "b"},
		{"too many rows", "application/json", jsonRows(rows[:51]), 413, "too_many_rows", 0, ""},
		{"body too large", "application/json", `{"rows":[` + big + `[1,2,3]]}`, 413, "body_too_large", 0, ""},
		{"media type", "application/xml", "<rows/>", 415, "unsupported_media_type", 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out := post(t, srv.Client(), srv.URL+"/v1/score", c.ct, c.body)
			if code != c.status || out.Error == nil || out.Error.Code != c.code || out.Error.Row != c.row || out.Error.Column != c.column {
				t.Fatalf("status %d, error %+v; want %d %s row %d column %s", code, out.Error, c.status, c.code, c.row, c.column)
			}
		})
	}
	t.Run("chunked body too large", func(t *testing.T) {
		// No Content-Length: the limit is met while reading.
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/score", io.MultiReader(strings.NewReader(`{"rows":[`+big+big), strings.NewReader("[1,2,3]]}")))
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
	for _, c := range []struct {
		method, path string
		status       int
	}{{"GET", "/v1/score", 405}, {"GET", "/nowhere", 404}, {"POST", "/v1/score?explain=9", 400}, {"POST", "/v1/model", 405}} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(jsonRows(rows[:1])))
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !json.Valid(b) || !bytes.Contains(b, []byte(`"error"`)) {
			t.Errorf("%s %s: status %d body %q, want %d and a JSON error", c.method, c.path, resp.StatusCode, b, c.status)
		}
	}
}

// TestHandlerSlowBody checks that a body that stops arriving is answered with 408 at the
// timeout, and that a request beyond MaxConcurrent is refused with 429 meanwhile.
func TestHandlerSlowBody(t *testing.T) {
	_, dir, _ := namedModel(t, 1)
	h, err := loadHandler(detector.HandlerOptions{Dir: dir, Timeout: 300 * time.Millisecond, MaxConcurrent: 1, Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	pr, pw := io.Pipe()
	defer pw.Close()
	go pw.Write([]byte(`{"rows":[[1,2,`)) // and nothing more: a slow-loris body
	done := make(chan int)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/score", pr)
		resp, err := srv.Client().Do(req)
		if err != nil {
			done <- -1
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	for i := 0; ; i++ { // until the slow request is in progress (the metrics request is the other)
		resp, err := srv.Client().Get(srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), "udocc_http_requests_in_flight 2") {
			break
		}
		if i == 1000 {
			t.Fatal("the slow request never arrived")
		}
		time.Sleep(time.Millisecond)
	}
	var busy int
	for range 100 {
		busy, _ = post(t, srv.Client(), srv.URL+"/v1/score", "application/json", `{"rows":[[1,2,3]]}`)
		if busy == http.StatusTooManyRequests {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if busy != http.StatusTooManyRequests {
		t.Errorf("a second request while one is in progress: status %d, want 429", busy)
	}
	if code := <-done; code != http.StatusRequestTimeout {
		t.Fatalf("slow body: status %d, want 408", code)
	}
}

// TestHandlerAuth checks the bearer token: required on every route but the probes.
func TestHandlerAuth(t *testing.T) {
	_, dir, rows := namedModel(t, 1)
	h, err := loadHandler(detector.HandlerOptions{Dir: dir, Token: "s3cret", Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	body := jsonRows(rows[:2])
	if code, out := post(t, srv.Client(), srv.URL+"/v1/score", "application/json", body); code != 401 || out.Error.Code != "unauthorized" {
		t.Errorf("no token: %d %+v", code, out.Error)
	}
	if code, _ := post(t, srv.Client(), srv.URL+"/v1/score", "application/json", body, "Authorization", "Bearer s3cres"); code != 401 {
		t.Errorf("wrong token: %d", code)
	}
	if code, out := post(t, srv.Client(), srv.URL+"/v1/score", "application/json", body, "Authorization", "Bearer s3cret"); code != 200 || out.Rows != 2 {
		t.Errorf("the token: %d %+v", code, out.Error)
	}
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/metrics": 401, "/v1/model": 401} {
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s without a token: %d, want %d", path, resp.StatusCode, want)
		}
	}
}

// TestHandlerInfoAndMetrics checks /v1/model against the folder's files, the probes,
// and that /metrics counts requests by code, rows scored and the model's version.
func TestHandlerInfoAndMetrics(t *testing.T) {
	m, dir, rows := namedModel(t, 1)
	h, err := loadHandler(detector.HandlerOptions{Dir: dir, Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	get := func(path string) (int, string) {
		resp, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := get("/v1/model")
	var info detector.ModelInfo
	if err := json.Unmarshal([]byte(body), &info); err != nil || code != 200 {
		t.Fatalf("%d %v %s", code, err, body)
	}
	entries, _ := os.ReadDir(dir)
	if len(info.Files) != len(entries) {
		t.Errorf("%d files described, the folder holds %d", len(info.Files), len(entries))
	}
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		sum := sha256.Sum256(b)
		if info.Files[e.Name()] != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: sha256 %s, want %x", e.Name(), info.Files[e.Name()], sum)
		}
	}
	if info.Method != (detector.Ensemble{}).Name() || !slices.Equal(info.Columns, []string{"a", "b", "c"}) || *info.Threshold != m.Threshold() ||
		info.Members != 2 || info.Count == "" || len(info.RatioInterval) != 2 || len(info.Version) != 16 {
		t.Errorf("info %+v", info)
	}
	// The version names the contents: the in-memory model has the same.
	mem := server(reloaded(t, m), detector.HandlerOptions{})
	if mem.Info().Version != info.Version {
		t.Errorf("version %s loaded from the folder, %s in memory", info.Version, mem.Info().Version)
	}
	mem.Close()
	for _, p := range []string{"/healthz", "/readyz"} {
		if code, _ := get(p); code != 200 {
			t.Errorf("%s: %d", p, code)
		}
	}
	post(t, srv.Client(), srv.URL+"/v1/score", "application/json", jsonRows(rows[:7]))
	post(t, srv.Client(), srv.URL+"/v1/score", "application/json", `{"rows":[[1]]}`)
	_, metrics := get("/metrics")
	for _, want := range []string{
		`udocc_http_requests_total{code="200",route="score"} 1`,
		`udocc_http_requests_total{code="400",route="score"} 1`,
		`udocc_rows_scored_total 7`,
		`udocc_http_request_duration_seconds_count{route="score"} 2`,
		fmt.Sprintf(`udocc_model_info{method="ensemble",udocc="%s",version="%s"} 1`, detector.Version, info.Version),
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	h.Close()
	if code, _ := get("/readyz"); code != 503 {
		t.Errorf("/readyz after Close: %d, want 503", code)
	}
}

// TestHandlerReload reloads the folder while clients score: every response comes whole
// from one of the two models (its scores are that version's, bit for bit), none fails,
// and a broken folder is refused while the model before keeps serving.
func TestHandlerReload(t *testing.T) {
	a, dir, rows := namedModel(t, 1)
	b, _, _ := namedModel(t, 7)
	body := jsonRows(rows[:20])
	want := map[string][]float64{}
	for _, m := range []*detector.Model{a, b} {
		s, err := m.Score(context.Background(), rows[:20])
		if err != nil {
			t.Fatal(err)
		}
		want[server(reloaded(t, m), detector.HandlerOptions{}).Info().Version] = s
	}
	if len(want) != 2 {
		t.Fatal("the two models have one version")
	}
	h, err := loadHandler(detector.HandlerOptions{Dir: dir, Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[string]int{}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				code, out := post(t, srv.Client(), srv.URL+"/v1/score", "application/json", body)
				if code != 200 {
					t.Errorf("status %d during reloads: %+v", code, out.Error)
					return
				}
				s := make([]float64, len(out.Results))
				for i, r := range out.Results {
					s[i] = r.Score
				}
				if !slices.Equal(s, want[out.Model]) {
					t.Errorf("a response of version %s holds scores that are not that model's", out.Model)
					return
				}
				mu.Lock()
				seen[out.Model]++
				mu.Unlock()
			}
		}()
	}
	for i := range 8 {
		m := []*detector.Model{b, a}[i%2]
		if err := m.Save(dir); err != nil {
			t.Fatal(err)
		}
		resp, err := srv.Client().Post(srv.URL+"/v1/reload", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("reload %d: status %d", i, resp.StatusCode)
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if len(seen) != 2 {
		t.Errorf("responses by version %v: want both models seen", seen)
	}

	// A broken folder: a member file cut short.
	before := h.Info().Version
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".pt") {
			os.WriteFile(filepath.Join(dir, e.Name()), []byte("cut"), 0o644)
			break
		}
	}
	resp, err := srv.Client().Post(srv.URL+"/v1/reload", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity || h.Info().Version != before {
		t.Fatalf("broken folder: reload status %d, version %s (before %s)", resp.StatusCode, h.Info().Version, before)
	}
	if code, out := post(t, srv.Client(), srv.URL+"/v1/score", "application/json", body); code != 200 || out.Model != before {
		t.Fatalf("after a refused reload: status %d model %s", code, out.Model)
	}
}

// TestHandlerSwapClosesOld checks that a model swapped out is closed once its requests
// are done, and that Close closes the last one.
func TestHandlerSwapClosesOld(t *testing.T) {
	a, _, rows := namedModel(t, 1)
	first, second := reloaded(t, a), reloaded(t, a)
	h := server(first, detector.HandlerOptions{Logger: quietLog()})
	h.Swap(second)
	h.Close()
	for i, m := range []*detector.Model{first, second} {
		if _, err := m.Score(context.Background(), rows[:1]); err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("model %d after Swap and Close: Score gave %v, want closed", i, err)
		}
	}
}

// loadHandler is the handler `udocc serve` loads.
func loadHandler(o detector.HandlerOptions) (*detector.Server, error) { return detector.LoadHandler(o) }

// server is Handler's handler as `udocc serve` drives it, with Swap.
func server(m *detector.Model, o detector.HandlerOptions) *detector.Server {
	return detector.Handler(m, o).(*detector.Server)
}
