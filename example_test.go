package udocc_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/udocc/udocc/internal/testrows"
	"os"
	"path/filepath"
	"testing"

	"github.com/udocc/udocc"
)

// quick are the default settings with few epochs, so that the examples run in seconds.
func quick() udocc.Options {
	return udocc.Options{PretrainEpochs: 5, Epochs: 3, Members: 2}
}

// Example fits the default detector, labels new rows, saves it, loads it and scores
// the new rows again.
func Example() {
	ctx := context.Background()
	m, err := udocc.Fit(ctx, table(200, 4, 1), nil, quick())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	fmt.Println("training rows scored:", len(m.Scores()), "labelled:", len(m.Labels()))

	fresh := table(20, 4, 2)
	labels, err := m.Predict(ctx, fresh)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("the far rows flagged:", labels[9], labels[19])

	dir, _ := os.MkdirTemp("", "udocc-example-")
	defer os.RemoveAll(dir)
	if err := m.Save(filepath.Join(dir, "model")); err != nil {
		fmt.Println(err)
		return
	}
	loaded, err := udocc.Load(filepath.Join(dir, "model"), "cpu")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer loaded.Close()
	a, _ := m.Score(ctx, fresh)
	b, _ := loaded.Score(ctx, fresh)
	fmt.Println("same scores after load:", fmt.Sprint(a) == fmt.Sprint(b))
	fmt.Println("same threshold after load:", m.Threshold() == loaded.Threshold())
	// Output:
	// training rows scored: 200 labelled: 200
	// the far rows flagged: true true
	// same scores after load: true
	// same threshold after load: true
}

// ExampleProposed fits the paper's method, whose δ search picks the threshold. Its
// zero settings are the paper's.
func ExampleProposed() {
	o := udocc.Options{PretrainEpochs: 5, Epochs: 5}
	m, err := udocc.Fit(context.Background(), table(200, 4, 1), udocc.Proposed{}, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	fmt.Println(m.Method(), "has a threshold:", m.Threshold() < 1e300, "labels:", len(m.Labels()))
	// Output: proposed has a threshold: true labels: 200
}

// ExampleValidate shows that a bad setting is reported by its struct and field.
func ExampleValidate() {
	fmt.Println(udocc.Validate(nil, udocc.Options{BatchSize: 1}))
	err := udocc.Validate(udocc.Ensemble{Trim: 0.7}, udocc.Options{})
	var oe *udocc.OptionError
	fmt.Println(errors.As(err, &oe), oe.Type, oe.Field)
	// Output:
	// udocc: Options.BatchSize: 1 < 2 (BatchNorm needs 2 rows)
	// true Ensemble Trim
}

// lifecycle is a fit with the defaults of `udocc fit`, labels of new rows, and the model
// saved, loaded and scoring them again.
func lifecycle(ctx context.Context, rows, newRows [][]float64, dir string) error {
	m, err := udocc.Fit(ctx, rows, nil, udocc.Options{}) // the defaults; rows: [][]float64, n rows of d numbers
	if err != nil {
		return err
	}
	defer m.Close()
	scores, labels := m.Scores(), m.Labels()  // training rows; also m.Threshold(), m.Ratio()
	newLabels, err := m.Predict(ctx, newRows) // new rows, standardised as the training rows were
	if err != nil {
		return err
	}
	if err := m.Save(dir); err != nil { // atomic; `udocc score --model dir` reads it too
		return err
	}
	saved, err := udocc.Load(dir, "cpu")
	if err != nil {
		return err
	}
	defer saved.Close()
	newScores, err := saved.Score(ctx, newRows)
	fmt.Println(len(scores), len(labels), len(newLabels), len(newScores))
	return err
}

// Example_defaults runs lifecycle: the defaults of `udocc fit` on 200 rows.
func Example_defaults() {
	dir, _ := os.MkdirTemp("", "udocc-example-")
	defer os.RemoveAll(dir)
	if err := lifecycle(context.Background(), table(200, 4, 1), table(20, 4, 2), filepath.Join(dir, "model")); err != nil {
		fmt.Println(err)
	}
	// Output: 200 200 20 20
}

// table is testrows.Table: every tenth row an anomaly far from the others.
var table = testrows.Table

// reloaded saves m into a new folder and loads it back on the CPU; the test closes it.
func reloaded(t *testing.T, m *udocc.Model) *udocc.Model {
	t.Helper()
	return testrows.Reloaded(t, m, udocc.Load)
}
