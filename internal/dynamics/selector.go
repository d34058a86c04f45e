package dynamics

// Selector chooses, after every fine-tuning epoch, which rows the next epoch trains on,
// and labels the rows at the end. The training loop calls Next once per epoch with the
// anomaly scores of all n rows (Eq. (3)), then Label once with the final scores.
//
// Implementations keep their own state across epochs (previous ranks, the running
// mean δ̄, ...), so one Selector serves one training run.
type Selector interface {
	// Name is the method's name as the CLI spells it ("proposed", "otsu", "tar", ...).
	Name() string
	// Next is called after epoch e (1-based) with the scores of all n rows. It returns
	// the training mask of epoch e+1 (true = the row is trained on; at least 2 rows are
	// always selected) and the record of epoch e.
	Next(e int, scores []float64) (mask []bool, rec Record, err error)
	// Label returns the final labels (true = anomaly) for the final scores and the
	// threshold in score units: a row is anomalous when its score is above it.
	Label(scores []float64) (labels []bool, threshold float64, err error)
}

// Record is one epoch's trace of a selector. Fields that a selector does not use are
// zero, except the float fields, which are NaN when not applicable.
type Record struct {
	Epoch         int       // e, 1-based
	DeltaStar     int       // δ^{e*} of Eq. (5), 0 when no search ran this epoch
	DeltaBar      float64   // running mean δ̄ of Eq. (6), NaN before the first search
	MinScaled     float64   // the minimum of Eq. (5), NaN when no search ran
	Ties          int       // how many δ share that minimum
	SelectedRatio float64   // selected anomaly ratio, (n−δ̄)/n for the rank-based rules
	NextTrainSize int       // |D_N^{e+1}|, rows the next epoch trains on
	Threshold     float64   // the threshold in score units, NaN when not applicable
	Floored       bool      // the selected set was below the floor and replaced by the lowest-ranked rows
	Curve         []float64 // the rule's objective for δ = 0..n (Eq. (5) for the paper rule; NaN outside [2, n−1]), only for requested epochs
}
