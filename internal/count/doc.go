// Package count is the default detector's count of anomalies: how many rows to flag
// when no share is given. A fit's scores (the screening's and the final ones, each
// member's distances and reconstruction errors) give features (Compute): shares that
// label-free rules flag, and measures of how cleanly the scores separate. A Model,
// learned on the real tables of a corpus by ridge regression with every source group
// weighing alike (Learn), maps them to ln(share), bounded to [0.1 %, 30 %], with an 80 %
// interval from the residuals of fits like it on source groups it was not learned from,
// and a flag saying whether that interval is narrow enough to trust the count.
//
// The model shipped with udocc is model.json (Default); `udocc-bench --study --real
// --corpus DIR --learn-count` learns it again from the corpus. bench/notes/threshold.md A.0 is
// the study behind it.
package count
