// Package udocc is Deep SVDD anomaly detection for Go programs: fit a detector on a
// table of numbers, keep its scores, threshold and labels, score and label new rows,
// save it and load it again. It is the one obvious way in: the udocc command and the
// bench's studies fit through it.
//
// The lifecycle is PyOD's, in Go idiom:
//
//	m, err := udocc.Fit(ctx, rows, udocc.Options{}) // the defaults; rows: [][]float64, n × d
//	if err != nil { ... }
//	defer m.Close()
//	m.Scores()    // anomaly scores of the training rows (higher is more anomalous)
//	m.Threshold() // in score units: a row is anomalous when its score is above it
//	m.Labels()    // true = anomaly, for every training row
//	labels, err := m.Predict(ctx, newRows)
//	err = m.Save("model")                        // the folder `udocc fit` writes as model/
//	m2, err := udocc.Load("model", "cpu")        // `udocc score --model model` reads it too
//
// Rows are a [][]float64 of n rows of d numbers each (every row the same length), held
// as float32 as package data holds a table read from a file; Fit standardises each
// column with the training rows' mean and standard deviation (summed in float64), and
// Score and Predict apply that saved standardisation to new rows. A fit holds the table
// once beside the copy it trains on (FitDataset standardises the rows on their way to
// it and leaves the caller's table as it was) and rescores it in chunks.
//
// The default method, Ensemble, trains five one-class Deep SVDD members from
// consecutive seeds twice: a screening fit on every row, then a fit from scratch without
// the share Options.Trim of rows the screening scored highest. It combines the members'
// distances and their pretraining autoencoders' robust reconstruction errors on robust
// scales, and by default flags the share a count learned on 71
// real tables gives (LearnedCount), with an 80 % interval for the share of
// anomalies (Model.RatioInterval) and a flag saying whether to trust it
// (Model.CountReliable); other rules (Options.Count; several flag the geometric mean of their
// shares) or a known contamination may be given instead. PaperOptions gives the paper's
// method Proposed and its settings; the paper's baselines OC, SB, Otsu and TAR are there
// too.
//
// Every call that trains or scores is cancellable: Fit checks its context after every
// epoch (a cancelled fit frees its networks and returns ctx.Err()), Score, Predict and
// Explain between blocks of rows. Options' zero value fits with the defaults; a field
// left zero is its method's default. Options.Progress hears every epoch and
// Options.Epoch sees the members' scores after each fine-tuning epoch. A Model holds libtorch
// networks: Close it. The udocc command is this package with flags, file formats and
// printing around it.
//
// The package is a guest in its host's process: importing it installs nothing (no
// allocator policy, no BLAS symbol: the shim exports only its udocc_ C functions), a
// call's thread count (Options.Threads, Model.SetThreads) holds for that call only, and
// a fit forces a garbage collection at three points only, each measured to lower its
// peak memory. Go's `go build` compiles the shim with cgo; libtorch is all it needs
// (the README's library section).
//
// Start from Fit (or FitDataset for a table read with package data) with Options{},
// and Load for a saved model.
package udocc
