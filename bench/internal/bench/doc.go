// Package bench answers "does udocc reproduce the paper?": it runs the grid of data
// sets × methods × seeds of the paper's Section V with the paper's settings, keeps one
// JSON line per finished run in an append-only results file, and writes a report that
// sets every mean ± std beside the paper's Tables II–IV and redraws Figs. 3 and 4.
//
// Run trains the grid. All pending runs of one data set are trained as one lockstep
// training.FitGroup (GroupDataset), so the members that share a seed share one
// pretrained autoencoder, as the paper's protocol wants; GroupSeed and GroupRun split
// the same work finer, for timing comparisons. A run is appended to results.jsonl (see
// Line) as soon as its group finishes, with O_APPEND, one write per line and an fsync,
// so a killed benchmark loses only its groups in flight; run again, it skips every run
// whose Key is already in the file. The key holds the data set, the method spec, the
// resolved δ rule, the seed, the training-config fingerprint and the data file's digest,
// so changing the epochs, the data or the default rule never reuses an old line; the
// device, the group mode and the job count are not in it. Each Run that trains is a
// session in sessions.json, from which the report takes the grid's wall time.
//
// WriteReport regenerates report.md and its figures from results.jsonl and sessions.json
// alone. The paper's numbers live in paper.go, copied from its tables.
//
// The package does not train by itself (package training does) and does not parse the
// command line (cmd/udocc maps its flags onto Options). Start from DefaultOptions, Run
// and WriteReport.
package bench
