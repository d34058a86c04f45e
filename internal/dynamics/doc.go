// Package dynamics decides, after every fine-tuning epoch, which rows the next epoch of
// Deep SVDD trains on, and labels the rows at the end. It implements the paper's
// ranking-based training dynamics (Section IV-A, Eqs. (4)–(6), Algorithm 1) and the
// baselines' selectors: Otsu's threshold (OC+Otsu), a given anomaly ratio (OC+TAR) and
// every row (OC, SB). Quantile is numpy's linear quantile (SB's radius is one).
//
// It is not for training: it sees only one score per row and epoch, never a tensor, a
// model or a loss, and it never imports torch. It is pure Go and tests without cgo.
//
// The training loop drives a Selector (selector.go): Next once per epoch with the scores
// of all rows, Label once at the end. Proposed is the paper's method; the Rule it is given
// picks δ^{e*} from the crossing counts (Paper is the literal Eq. (5)), so a new rule is a
// new Rule type. The steps are usable alone: Ranks, Crossings, ScaledCurve, Search,
// OtsuThreshold, Quantile.
//
// # Decisions the paper leaves open
//
// Ranks. Ascending, 1..n, rank 1 the lowest score (most normal). Equal scores are ranked
// by row index, lower index first. Scores that collapsed to one value therefore give the
// identity ranking every epoch: no crossings at all, and every δ ties in Eq. (5).
//
// Search range. Eq. (5) is searched over δ ∈ [2, n−1], so n ≥ 3. The paper says
// {2, …, n}, but δ = n has area δ(n−δ) = 0 and divides by zero; δ = 1 (N empty, count 0)
// is left out as the paper does. Crossings still reports every δ = 0..n.
//
// Ties of the minimum. Scaled counts are compared exactly as rationals, and TieRule picks
// the smallest, largest or (lower) median tied δ. Ties are the common case, at count 0,
// and the ends of the range produce them: counts[2] = 0 whenever the rank-1 row keeps its
// rank, counts[n−1] = 0 whenever the top two rows stay the top two. A literal
// implementation of Eq. (5), measured outside this package on the ten ODDS sets with 10
// seeds, found: with ties to the smallest δ, δ̄ becomes 2 at epoch 3, the next epoch
// trains on one row (two here, the floor), the ranks freeze and about 99% of the rows are
// flagged; with ties to the largest δ, 0–2% are flagged and the method behaves like plain
// OC. Neither reproduces the paper's Fig. 4 (fig:thr: thresholds near the true anomaly
// ratio). The literal reading stays available as Paper{Ties: …} so that it can be
// measured; DefaultRule is Accumulated, which sums the counts over epochs, judges them by
// an upper confidence bound and searches the majority range [⌈n/2⌉, n−1]
// (docs/threshold.md has the design and the measurements).
//
// Running mean. δ̄ is the arithmetic mean of every δ^{e'*}, 2 ≤ e' ≤ e (Eq. (6)), a real
// number in [2, n−1]; "ranked below δ̄" is r < δ̄.
//
// Schedule. Next(1) returns every row (D_N^2 = D; D_N^1 = D is the loop's own). The first
// search is Next(2), on the ranks of epochs 1 and 2; its mask is D_N^3. Otsu and TAR
// follow the same schedule, so every method trains epochs 1 and 2 on all rows.
//
// Score source. Selectors take whatever scores the loop passes. udocc's training loop
// (package training, Config.Scores) passes Next the train-mode distances of the epoch's
// own pass by default, or, when asked, an eval-mode pass over all rows after the epoch;
// Label always gets the final eval-mode scores, the ones udocc reports and `score`
// computes. That choice is the loop's; nothing here depends on it. Non-finite scores
// are an error.
//
// Floor. A returned mask never has fewer than 2 rows (MinTrainRows; BatchNorm needs 2).
// When D_N^{e+1} (or Otsu's lower class) is smaller, the mask is replaced by the floor
// rows of lowest current rank and Record.Floored is set; δ̄ is left as it is.
// ProposedOptions.MinTrain raises the floor.
//
// Labels and threshold. Proposed flags a row when its final rank is at or above δ̄, i.e.
// rank ≥ ⌈δ̄⌉, n−⌈δ̄⌉+1 rows; Otsu flags scores above the Otsu threshold of the final
// scores; TAR flags the round(ratio·n) highest ranks. For the rank rules the threshold in
// score units is t with s_(k−1) ≤ t < s_(k) (the midpoint, unless rounding lands on
// s_(k)), s_(r) the score of rank r and k the first flagged rank, so "score > t" gives
// the labels, except when s_(k−1) = s_(k): tied scores on the cut are split by row index
// and t is their common value. Record.SelectedRatio for Proposed is the paper's (n−δ̄)/n,
// which differs from the flagged fraction by at most 1/n.
//
// Curves. ProposedOptions.CurveEpochs or CurveAll put the curve of Eq. (5) into chosen
// epochs' records. Proposed.Accumulated sums the crossing counts over all search epochs;
// ScaledCurve of that sum is the paper's Fig. 3 (fig:src): the scale does not depend on
// the epoch.
package dynamics
