package detector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/udocc/udocc/internal/detector"
)

// v2Answer is an Open Inference Protocol infer answer, or its refusal.
type v2Answer struct {
	ModelName    string `json:"model_name"`
	ModelVersion string `json:"model_version"`
	ID           string `json:"id"`
	Outputs      []struct {
		Name     string            `json:"name"`
		Datatype string            `json:"datatype"`
		Shape    []int             `json:"shape"`
		Data     []json.RawMessage `json:"data"`
	} `json:"outputs"`
	Error string `json:"error"`
}

func v2Do(t *testing.T, c *http.Client, method, url, body string) (int, v2Answer, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var a v2Answer
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("%s %s: %d, not JSON: %s", method, url, resp.StatusCode, b)
	}
	return resp.StatusCode, a, string(b)
}

// TestHandlerV2 checks the Open Inference Protocol routes: health, metadata, and infer
// with one [n, d] tensor, with nested data, and with one tensor per column in another
// order, each scoring exactly as Model.Score and labelling by the threshold; and that
// bad requests get the protocol's {"error": "…"} with their 4xx status.
func TestHandlerV2(t *testing.T) {
	m, dir, rows := namedModel(t, 1)
	rows = rows[:30]
	want, err := m.Score(context.Background(), rows)
	if err != nil {
		t.Fatal(err)
	}
	h, err := loadHandler(detector.HandlerOptions{Dir: dir, Logger: quietLog(), ModelName: "pumps"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := srv.Client()
	version := h.Info().Version

	for _, p := range []string{"/v2/health/live", "/v2/health/ready", "/v2", "/v2/models/pumps", "/v2/models/pumps/ready", "/v2/models/pumps/versions/" + version + "/ready"} {
		if code, _, body := v2Do(t, c, http.MethodGet, srv.URL+p, ""); code != http.StatusOK {
			t.Errorf("GET %s: %d %s", p, code, body)
		}
	}
	_, _, meta := v2Do(t, c, http.MethodGet, srv.URL+"/v2/models/pumps", "")
	for _, s := range []string{`"versions":["` + version + `"]`, `"shape":[-1,3]`, `"name":"label","datatype":"BOOL"`, `"columns":["a","b","c"]`} {
		if !strings.Contains(meta, s) {
			t.Errorf("metadata %s lacks %s", meta, s)
		}
	}

	flat, nested := make([]string, 0, 90), make([]string, 0, 30)
	cols := [3][]string{}
	for _, r := range rows {
		var cells []string
		for j, v := range r {
			s := strconv.FormatFloat(v, 'g', -1, 64)
			flat, cells, cols[j] = append(flat, s), append(cells, s), append(cols[j], s)
		}
		nested = append(nested, "["+strings.Join(cells, ",")+"]")
	}
	tensor := func(name string, shape string, data []string) string {
		return fmt.Sprintf(`{"name":%q,"shape":%s,"datatype":"FP64","data":[%s]}`, name, shape, strings.Join(data, ","))
	}
	for _, c2 := range []struct{ name, body string }{
		{"one tensor", `{"id":"r1","inputs":[` + tensor("input", "[30,3]", flat) + `]}`},
		{"nested", `{"id":"r1","parameters":{"x":[1,{"y":2}]},"inputs":[` + tensor("input-0", "[30,3]", nested) + `]}`},
		{"by column", `{"id":"r1","inputs":[` + tensor("c", "[30]", cols[2]) + "," + tensor("a", "[30,1]", cols[0]) + "," + tensor("b", "[30]", cols[1]) + `]}`},
	} {
		t.Run(c2.name, func(t *testing.T) {
			code, a, body := v2Do(t, c, http.MethodPost, srv.URL+"/v2/models/pumps/infer", c2.body)
			if code != http.StatusOK || a.ModelName != "pumps" || a.ModelVersion != version || a.ID != "r1" || len(a.Outputs) != 3 {
				t.Fatalf("%d %s", code, body)
			}
			for i := range rows {
				score, _ := strconv.ParseFloat(string(a.Outputs[0].Data[i]), 64)
				if score != want[i] {
					t.Fatalf("row %d: score %v, Model.Score %v", i+1, score, want[i])
				}
				if label := string(a.Outputs[1].Data[i]) == "true"; label != (score > m.Threshold()) {
					t.Errorf("row %d: label %v for score %v, threshold %v", i+1, label, score, m.Threshold())
				}
			}
			if a.Outputs[1].Datatype != "BOOL" || a.Outputs[2].Name != "probability" || a.Outputs[0].Shape[0] != 30 {
				t.Errorf("outputs %s", body)
			}
		})
	}
	// A null is a missing value, imputed with the training median as Model.Score does.
	gap := slices.Clone(flat)
	gap[1] = "null"
	withGap := slices.Clone(rows[0])
	withGap[1] = math.NaN()
	wantGap, err := m.Score(context.Background(), [][]float64{withGap})
	if err != nil {
		t.Fatal(err)
	}
	code, a, body := v2Do(t, c, http.MethodPost, srv.URL+"/v2/models/pumps/infer", `{"inputs":[`+tensor("input", "[30,3]", gap)+`]}`)
	if got, _ := strconv.ParseFloat(string(a.Outputs[0].Data[0]), 64); code != http.StatusOK || got != wantGap[0] {
		t.Errorf("a null cell: %d %.200s; want row 1 scored %v, its cell imputed", code, body, wantGap[0])
	}
	code, a, _ = v2Do(t, c, http.MethodPost, srv.URL+"/v2/models/pumps/infer", `{"inputs":[`+tensor("input", "[30,3]", flat)+`],"outputs":[{"name":"score"}]}`)
	if code != http.StatusOK || len(a.Outputs) != 1 || a.Outputs[0].Name != "score" {
		t.Errorf("outputs asked: %d %+v", code, a)
	}

	for _, bad := range []struct {
		path, body string
		code       int
		says       string
	}{
		{"/v2/models/other/infer", `{}`, 404, "no model"},
		{"/v2/models/pumps/versions/0000/infer", `{}`, 404, "no model"},
		{"/v2/models/pumps/infer", `{"inputs":[` + tensor("input", "[30,3]", flat[:89]) + `]}`, 400, "shape [30 3] holds 90 values, data 89"},
		{"/v2/models/pumps/infer", `{"inputs":[` + tensor("input", "[30,2]", flat[:60]) + `]}`, 400, "want [n, 3]"},
		{"/v2/models/pumps/infer", `{"inputs":[` + tensor("a", "[30]", cols[0]) + "," + tensor("b", "[30]", cols[1]) + `]}`, 400, `no input for column "c"`},
		{"/v2/models/pumps/infer", `{"inputs":[` + tensor("a", "[30]", cols[0]) + "," + tensor("b", "[30]", cols[1]) + "," + tensor("z", "[30]", cols[2]) + `]}`, 400, `input "z" is no column`},
		{"/v2/models/pumps/infer", `{"inputs":[{"name":"input","shape":[1,3],"datatype":"FP64","data":[null,null,null]}]}`, 400, "every cell of the row is missing"},
		{"/v2/models/pumps/infer", `{"inputs":[{"name":"input","shape":[1,3],"datatype":"BYTES","data":["a","b","c"]}]}`, 400, "BYTES"},
		{"/v2/models/pumps/infer", `{"inputs":[{"name":"input","shape":[1,3],"datatype":"FP64","data":[1,2,1e300]}]}`, 400, "float32 range"},
		{"/v2/models/pumps/infer", `{"inputs":[` + tensor("input", "[30,3]", flat) + `],"outputs":[{"name":"loss"}]}`, 400, "output \"loss\""},
		{"/v2/models/pumps/infer", `{"inputs":`, 400, "EOF"},
		{"/v2/models/pumps/nothing", ``, 404, "no route"},
	} {
		code, a, body := v2Do(t, c, http.MethodPost, srv.URL+bad.path, bad.body)
		if code != bad.code || !strings.Contains(a.Error, bad.says) {
			t.Errorf("POST %s %.60s: %d %s; want %d and %q", bad.path, bad.body, code, body, bad.code, bad.says)
		}
	}
	if code, _, _ := v2Do(t, c, http.MethodGet, srv.URL+"/v2/models/pumps/infer", ""); code != http.StatusMethodNotAllowed {
		t.Errorf("GET infer: %d", code)
	}
}

// TestHandlerDriftMetrics checks that /metrics counts the flagged rows and places each
// score among the training scores: rows like the training rows fill the histogram's
// buckets as the training rows do, and far rows land above its top bucket.
func TestHandlerDriftMetrics(t *testing.T) {
	_, dir, rows := namedModel(t, 1)
	h, err := loadHandler(detector.HandlerOptions{Dir: dir, Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	// The training rows themselves: a share 1-b of them above bucket b.
	code, out := post(t, srv.Client(), srv.URL+"/v1/score", "application/json", jsonRows(rows))
	if code != http.StatusOK {
		t.Fatalf("status %d: %+v", code, out.Error)
	}
	flagged := *out.Flagged
	metric := func(name string) float64 {
		resp, err := srv.Client().Get(srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		mm := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindSubmatch(b)
		if mm == nil {
			t.Fatalf("no %s in /metrics", name)
		}
		v, _ := strconv.ParseFloat(string(mm[1]), 64)
		return v
	}
	n := float64(len(rows))
	if got := metric("udocc_rows_flagged_total"); got != float64(flagged) || flagged == 0 {
		t.Errorf("udocc_rows_flagged_total %v, the answer flagged %d", got, flagged)
	}
	if got := metric("udocc_score_training_quantile_count"); got != n {
		t.Errorf("histogram count %v, want %v", got, n)
	}
	for _, b := range []struct {
		le   string
		want float64
	}{{"0.5", 0.5}, {"0.9", 0.9}} {
		got := metric(`udocc_score_training_quantile_bucket{le="` + b.le + `"}`)
		if got < (b.want-0.1)*n || got > (b.want+0.1)*n {
			t.Errorf("bucket le=%s: %v of %v training rows, want about %v", b.le, got, n, b.want*n)
		}
	}
	// Far rows: every one above the top bucket.
	far := make([][]float64, 10)
	for i := range far {
		far[i] = []float64{1e3, -1e3, 1e3}
	}
	before := metric(`udocc_score_training_quantile_bucket{le="0.999"}`)
	if code, out := post(t, srv.Client(), srv.URL+"/v1/score", "application/json", jsonRows(far)); code != http.StatusOK || *out.Flagged != 10 {
		t.Fatalf("far rows: %d %+v", code, out)
	}
	if got := metric(`udocc_score_training_quantile_bucket{le="0.999"}`); got != before {
		t.Errorf("far rows fell at or below the 0.999 bucket: %v, before %v", got, before)
	}
}
