// Package count is the default detector's count of anomalies: how many rows to flag
// when no share is given. A fit's scores (the screening's and the final ones, each
// member's distances and reconstruction errors) give features (Compute): shares that
// label-free rules flag, and measures of how cleanly the scores separate. A Model maps
// them to ln(share), bounded to [0.1 %, 30 %], with an 80 % interval and a flag saying
// whether that interval is narrow enough to trust the count.
//
// The model shipped with udocc is model.json (Default). It is learned on the corpus's
// real tables by the bench's learner (bench/internal/countlearn), which `udocc-bench
// --study --real --corpus DIR --learn-count` runs; bench/notes/threshold.md A.0 is the
// study behind it.
package count
