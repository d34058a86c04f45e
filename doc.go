// Package udocc is Deep SVDD anomaly detection for Go programs. Fit a detector on a
// table of numbers, keep its scores, threshold and labels, and score new rows. Save it
// and load it again.
//
// The lifecycle is PyOD's, in Go idiom:
//
//	m, err := udocc.Fit(ctx, rows, nil, udocc.Options{}) // the defaults; rows: [][]float64, n × d
//	if err != nil { ... }
//	defer m.Close()
//	m.Scores()    // anomaly scores of the training rows (higher is more anomalous)
//	m.Threshold() // in score units: a row is anomalous when its score is above it
//	m.Labels()    // true = anomaly, for every training row
//	labels, err := m.Predict(ctx, newRows)
//	err = m.Save("model")                        // the folder `udocc fit` writes as model/
//	m2, err := udocc.Load("model", "cpu")        // `udocc score --model model` reads it too
//
// Rows are n rows of d numbers, held as float32. Fit standardises each column with the
// training rows' mean and standard deviation. Score and Predict apply the same to new
// rows.
//
// The default method, Ensemble, trains five one-class Deep SVDD members twice. A
// screening fit sees every row; the final fit leaves out the share Ensemble.Trim that the
// screening scored highest. The score combines the members' distances and their
// autoencoders' reconstruction errors. The count of rows to flag comes from a count
// learned on 71 real tables (LearnedCount), with an 80 % interval (Model.RatioInterval).
// Other rules (Ensemble.Count) or a known contamination may be given instead. A few
// answers about chosen rows give a better count (Model.ReviewRows, Model.Calibrate).
// Fit's method is a struct of its own settings: Ensemble{} (or nil) is the default,
// Proposed{} the paper's method with the paper's settings; its baselines OC, SB, Otsu
// and TAR are there too. Options holds the settings every method shares.
//
// Every call that trains or scores takes a context and stops when it is cancelled. A
// Model holds libtorch networks: Close it. The package installs nothing in its host's
// process, and a call's thread count holds for that call only. `go build` compiles the
// shim with cgo; libtorch is all it needs (the README's library section).
//
// Package serve serves a saved model over HTTP. The udocc command is this package with
// flags, file formats and printing around it.
//
// Start from Fit (or FitDataset for a table read with package data) with nil and Options{},
// and Load for a saved model.
package udocc
