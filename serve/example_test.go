package serve_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/udocc/udocc"
	"github.com/udocc/udocc/serve"
)

// savedModel fits a quick model on a synthetic table and saves it into a new folder.
func savedModel() (string, error) {
	rng := rand.New(rand.NewPCG(1, 1))
	rows := make([][]float64, 120)
	for i := range rows {
		rows[i] = []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		if i%10 == 9 {
			rows[i][0] += 8
		}
	}
	o := udocc.Options{PretrainEpochs: 5, Epochs: 3, Members: 2}
	m, err := udocc.Fit(context.Background(), rows, nil, o)
	if err != nil {
		return "", err
	}
	defer m.Close()
	tmp, err := os.MkdirTemp("", "serve-example")
	if err != nil {
		return "", err
	}
	dir := filepath.Join(tmp, "model")
	return dir, m.Save(dir)
}

// ExampleServer serves a saved model, scores a row, reloads the folder and stops.
func ExampleServer() {
	dir, err := savedModel()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(filepath.Dir(dir))
	s, err := serve.Open(serve.Options{Dir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	ts := httptest.NewServer(s)
	defer ts.Close()

	resp, err := http.Post(ts.URL+"/v1/score", "application/json", strings.NewReader(`{"rows": [[0, 0, 0], [9, 0, 0]]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println("score:", resp.Status)

	before := s.Info().Version
	info, err := s.Reload()
	fmt.Println("reloaded:", err == nil, "same model:", info.Version == before)

	s.Close()
	resp, err = http.Get(ts.URL + "/readyz")
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println("after Close:", resp.Status)
	// Output:
	// score: 200 OK
	// reloaded: true same model: true
	// after Close: 503 Service Unavailable
}

// ExampleOpen shows the refusal of Options without a model folder.
func ExampleOpen() {
	_, err := serve.Open(serve.Options{})
	fmt.Println(err == serve.ErrNoModelDir)
	// Output:
	// true
}
