package udocc_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"

	"github.com/udocc/udocc"
	"github.com/udocc/udocc/data"
)

// fitted is one quick fit on table(200, 4, 1), shared by the examples below (never
// closed: the test process ends with it).
var fitted = sync.OnceValues(func() (*udocc.Model, error) {
	return udocc.Fit(context.Background(), table(200, 4, 1), nil, quick())
})

// ExampleFit fits the default method; every tenth row of the table is far out.
func ExampleFit() {
	m, err := udocc.Fit(context.Background(), table(200, 4, 1), nil, quick())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	fmt.Println(m.Method(), len(m.Scores()), "rows scored; row 10 flagged:", m.Labels()[9])
	// Output: ensemble 200 rows scored; row 10 flagged: true
}

// ExampleFitDataset fits a table with named columns, as package data reads one.
func ExampleFitDataset() {
	rows := table(200, 3, 1)
	ds := &data.Dataset{Name: "sensors", N: len(rows), D: 3, Features: []string{"a", "b", "c"}, Named: true}
	for _, r := range rows {
		for _, v := range r {
			ds.X = append(ds.X, float32(v))
		}
	}
	m, err := udocc.FitDataset(context.Background(), ds, nil, quick())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	fmt.Println(m.Features())
	// Output: [a b c]
}

// ExampleLoad saves a model and loads it back: same threshold, same scores.
func ExampleLoad() {
	m, err := fitted()
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "udocc-example-")
	defer os.RemoveAll(dir)
	if err := m.Save(filepath.Join(dir, "model")); err != nil {
		fmt.Println(err)
		return
	}
	l, err := udocc.Load(filepath.Join(dir, "model"), "cpu")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()
	rows := table(10, 4, 3)
	a, _ := m.Score(context.Background(), rows)
	b, _ := l.Score(context.Background(), rows)
	fmt.Println(l.Threshold() == m.Threshold(), fmt.Sprint(a) == fmt.Sprint(b), l.Scores() == nil)
	// Output: true true true
}

// ExampleModel_Score scores new rows: a row far from the training rows scores above
// the threshold.
func ExampleModel_Score() {
	m, err := fitted()
	if err != nil {
		fmt.Println(err)
		return
	}
	scores, err := m.Score(context.Background(), [][]float64{{0, 0, 0, 0}, {30, 30, 30, 30}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(scores[0] < m.Threshold(), scores[1] > m.Threshold())
	// Output: true true
}

// ExampleModel_Predict labels new rows, true = anomaly.
func ExampleModel_Predict() {
	m, err := fitted()
	if err != nil {
		fmt.Println(err)
		return
	}
	labels, err := m.Predict(context.Background(), [][]float64{{0, 0, 0, 0}, {30, 30, 30, 30}})
	fmt.Println(labels, err)
	// Output: [false true] <nil>
}

// ExampleModel_ScoreDataset scores a table read with package data, with each member's
// distances beside the scores.
func ExampleModel_ScoreDataset() {
	m, err := fitted()
	if err != nil {
		fmt.Println(err)
		return
	}
	ds := &data.Dataset{Name: "new", N: 2, D: 4, X: []float32{0, 0, 0, 0, 8, 8, 8, 8}}
	scores, members, err := m.ScoreDataset(context.Background(), ds)
	fmt.Println(len(scores), len(members), err)
	// Output: 2 2 <nil>
}

// ExampleModel_Probabilities reads scores as probabilities: 1/2 at the threshold.
func ExampleModel_Probabilities() {
	m, err := fitted()
	if err != nil {
		fmt.Println(err)
		return
	}
	t := m.Threshold()
	p := m.Probabilities([]float64{t - 100, t, t + 100})
	fmt.Println(p[0] < 0.5, p[1], p[2] > 0.5)
	// Output: true 0.5 true
}

// ExampleModel_Ratio is the share of training rows flagged, inside the count's 80 %
// interval.
func ExampleModel_Ratio() {
	m, err := fitted()
	if err != nil {
		fmt.Println(err)
		return
	}
	lo, hi := m.RatioInterval()
	fmt.Println(m.Ratio() > 0, lo <= m.Ratio() && m.Ratio() <= hi)
	// Output: true true
}

// ExampleModel_CountBasis says what the count rests on: with no answers, the scores or
// the corpus prior.
func ExampleModel_CountBasis() {
	m, err := fitted()
	if err != nil {
		fmt.Println(err)
		return
	}
	b := m.CountBasis()
	_, ok := m.CountReliable()
	fmt.Println(b.Answers, b.Share > 0, ok)
	// Output: 0 true true
}

// ExampleModel_SetThreads scores on two threads: the same scores, faster.
func ExampleModel_SetThreads() {
	m, err := udocc.Fit(context.Background(), table(200, 4, 1), nil, quick())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	rows := table(50, 4, 2)
	a, _ := m.Score(context.Background(), rows)
	m.SetThreads(2)
	b, _ := m.Score(context.Background(), rows)
	fmt.Println(fmt.Sprint(a) == fmt.Sprint(b))
	// Output: true
}

// ExampleModel_Close frees the networks; later calls say so.
func ExampleModel_Close() {
	m, err := udocc.Fit(context.Background(), table(200, 4, 1), nil, quick())
	if err != nil {
		fmt.Println(err)
		return
	}
	m.Close()
	_, err = m.Score(context.Background(), table(2, 4, 2))
	fmt.Println(errors.Is(err, udocc.ErrClosed))
	// Output: true
}

// ExampleHandler serves a model held in memory; the handler takes it over.
func ExampleHandler() {
	m, err := udocc.Fit(context.Background(), table(200, 4, 1), nil, quick())
	if err != nil {
		fmt.Println(err)
		return
	}
	h := udocc.Handler(m, udocc.HandlerOptions{})
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.(interface{ Close() error }).Close() // closes m too
	resp, err := http.Get(ts.URL + "/readyz")
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println(resp.Status)
	// Output: 200 OK
}

// ExampleRuntimeInfo says which libtorch this build runs on.
func ExampleRuntimeInfo() {
	r := udocc.RuntimeInfo()
	fmt.Println(r.Libtorch != "")
	// Output: true
}

// ExampleDefaults are the settings a zero Ensemble and Options fit with: those of
// `udocc fit`.
func ExampleDefaults() {
	m, o := udocc.Defaults(nil)
	e := m.(udocc.Ensemble)
	fmt.Println(m.Name(), o.Members, o.Epochs, e.ScreenEpochs, e.Trim, e.Contamination)
	// Output: ensemble 5 10 50 0.1 0
}

// ExampleMethodNamed reads a method by the name `udocc fit --method` takes.
func ExampleMethodNamed() {
	m, err := udocc.MethodNamed("tar")
	fmt.Printf("%T %v\n", m, err)
	_, err = udocc.MethodNamed("svm")
	fmt.Println(err)
	// Output:
	// detector.TAR <nil>
	// udocc: unknown method "svm": want one of ensemble, proposed, oc, sb, otsu, tar
}

// ExampleJoinFromEnv is nil outside a data-parallel run (WORLD_SIZE unset): one process.
func ExampleJoinFromEnv() {
	os.Unsetenv("WORLD_SIZE")
	d, err := udocc.JoinFromEnv("cpu", 0)
	fmt.Println(d == nil, err)
	// Output: true <nil>
}

// ExampleModel_Encoding fits a CSV with a text column, which becomes one-hot features,
// and scores new rows read with the model's encoding: a category training never saw is
// counted, and scored.
func ExampleModel_Encoding() {
	dir, err := os.MkdirTemp("", "udocc-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	text := "site,load\n"
	for i := range 200 {
		text += fmt.Sprintf("%s,%d\n", []string{"north", "south"}[i%2], 40+i%17)
	}
	train := filepath.Join(dir, "train.csv")
	os.WriteFile(train, []byte(text), 0o644)
	ds, err := data.Load(train, data.LoadOptions{Encode: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := udocc.FitDataset(context.Background(), ds, nil, quick())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	fmt.Println(m.Features())
	fresh := filepath.Join(dir, "new.csv")
	os.WriteFile(fresh, []byte("site,load\nnorth,45\neast,44\n"), 0o644)
	nw, err := data.Load(fresh, data.LoadOptions{Encoding: m.Encoding()})
	if err != nil {
		fmt.Println(err)
		return
	}
	scores, _, err := m.ScoreDataset(context.Background(), nw)
	fmt.Println(len(scores), "rows scored; unseen sites:", nw.Unseen[0], err)
	// Output:
	// [load site = north site = south]
	// 2 rows scored; unseen sites: 1 <nil>
}

// ExampleModel_ExplainDataset names the feature that raises a flagged row most. Row 10
// of the table is far out in every feature.
func ExampleModel_ExplainDataset() {
	m, err := fitted()
	if err != nil {
		fmt.Println(err)
		return
	}
	rows := table(200, 4, 1)
	ds := &data.Dataset{Name: "rows", N: 1, D: 4, X: []float32{float32(rows[9][0]), float32(rows[9][1]), float32(rows[9][2]), float32(rows[9][3])}}
	atts, err := m.ExplainDataset(context.Background(), ds, nil, udocc.ExplainOptions{Method: udocc.Occlusion})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(atts), len(atts[0].Features), atts[0].Score > atts[0].Base)
	// Output: 1 4 true
}

// ExampleModel_RatioInterval gives the default count's 80 % interval for the share of
// anomalies, around the share it flags.
func ExampleModel_RatioInterval() {
	m, err := fitted()
	if err != nil {
		fmt.Println(err)
		return
	}
	lo, hi := m.RatioInterval()
	fmt.Println(lo <= m.Ratio() && m.Ratio() <= hi)
	// Output: true
}
