package udocc

import (
	"context"
	"errors"
	"fmt"
	"github.com/udocc/udocc/internal/tool"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/count"
	"github.com/udocc/udocc/internal/fitrecord"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/scale"
	"github.com/udocc/udocc/internal/threshold"
	"github.com/udocc/udocc/internal/torch"
	"github.com/udocc/udocc/internal/training"
)

// Model is a fitted detector: its networks (one encoder per member, and for the
// ensemble method each member's pretraining autoencoder), the saved standardisation,
// the threshold, and for a model that Fit returned the training rows' scores, labels
// and per-epoch history. It is not safe for concurrent use. Close frees it.
type Model struct {
	meta    *models.Meta
	nets    []*torch.Group // member k's encoder, center and radius
	aes     []*torch.Group // member k's autoencoder; nil for the paper's methods
	device  string
	threads int     // Options.Threads of a fit, SetThreads of a loaded model
	thr     float64 // +Inf where the method has none (oc)
	scores  []float64
	labels  []bool
	members []tool.Member
	history [][]tool.Epoch
	calls   inflight // the calls on nets and aes in flight, which Close waits for
}

// epochsOf is a member's history in root's terms.
func epochsOf(h []training.Epoch) []tool.Epoch {
	out := make([]tool.Epoch, len(h))
	for i, e := range h {
		r := e.Record
		out[i] = tool.Epoch{Epoch: e.Epoch, Loss: e.Loss, TrainSize: e.TrainSize, Radius: e.Radius, Seconds: e.Seconds,
			DeltaStar: r.DeltaStar, DeltaBar: r.DeltaBar, MinScaled: r.MinScaled, Ties: r.Ties,
			SelectedRatio: r.SelectedRatio, NextTrainSize: r.NextTrainSize, Threshold: r.Threshold,
			Floored: r.Floored, Curve: r.Curve}
	}
	return out
}

// Fit trains a detector on rows, n rows of d numbers each, with opts, and scores and
// labels every row. ctx is checked after every epoch: a cancelled fit returns ctx.Err();
// a nil ctx is context.Background().
func Fit(ctx context.Context, rows [][]float64, opts Options) (*Model, error) {
	ds, err := dataset(rows, -1)
	if err != nil {
		return nil, err
	}
	return FitDataset(ctx, ds, opts)
}

// FitDataset is Fit on a table read with package data (a nil ctx is
// context.Background()); its labels, if any, are never trained on, and its name is only
// recorded (the layer widths are opts.Hidden, else the ensemble's for the table's width,
// models.EnsembleHidden, and 32,16,8 for the other methods).
// ds is not changed but for its missing values (NaN, as package data reads a missing
// cell under MissingKeep), which are imputed in place with their feature's median over
// the training rows (Medians, kept in the model for the rows it scores); a row with no
// value at all is refused (ErrNoValues). Its rows are standardised on their way to the
// networks, so that the fit holds no other full copy of them beside the one training
// reads.
func FitDataset(ctx context.Context, ds *data.Dataset, opts Options) (*Model, error) {
	opts = opts.resolved()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	medians := fitMedians(ds)
	missing, err := impute(ds, medians)
	if err != nil {
		return nil, err
	}
	if missing != nil && opts.Dist != nil {
		return nil, errors.New("udocc: a data-parallel fit takes no missing values: fill them in first")
	}
	rk, err := newRanks(opts.Dist, ds.N)
	if err != nil {
		return nil, err
	}
	n := ds.N // rows of the whole table
	if rk != nil {
		n = rk.n
	}
	if err := opts.ValidateRows(n); err != nil {
		return nil, err
	}
	meth := opts.Method.internal() // checked by Validate
	hidden := opts.Hidden
	switch {
	case hidden != nil:
	case meth.Ensemble:
		hidden = models.EnsembleHidden(ds.D)
	default:
		hidden = slices.Clone(models.DefaultHidden)
	}
	var scaler *scale.Scaler
	if rk == nil {
		scaler, err = scale.Fit(ds)
	} else {
		scaler, err = scale.FitParts(ds, rk.d.Rank() == 0, rk.d.AllReduce)
	}
	if err != nil {
		return nil, fmt.Errorf("udocc: %w", err)
	}
	mo := training.MethodOptions{Ratio: opts.Ratio}
	if opts.Epochs >= 2 {
		mo.CurveEpochs = []int{opts.Epochs} // the last epoch's Eq. (5) curve, for History
	}
	seeds := opts.seeds()
	// The thread count is this fit's, and back to what it was when it returns (torch.WithThreads).
	defer torch.WithThreads(workers(opts.Threads))()
	hooks := &training.Hooks{Progress: opts.Progress, Epoch: opts.Epoch, Stop: ctx.Err}
	// The ensemble's training rows: every row, or a sample (Options.TrainRows). On a sample
	// the screening scores the sample's rows, not the table's: what reads them row by row
	// beside the final scores (the count's agreement features, a study's record of the
	// screening) has no rows to pair them with, and gets none.
	x, trainN := ds.X, ds.N
	if meth.Ensemble {
		x, trainN = trainingRows(ds, opts.TrainRows, opts.Seed, rk != nil)
	}
	screenRecord := fitrecord.From(ctx)
	if trainN < ds.N {
		screenRecord = nil
	}
	if rec := screenRecord; rec != nil && meth.Ensemble {
		hooks.ScreenEpoch = func(k, e int, scores []float64) {
			for len(rec.ScreenEpochs) <= k {
				rec.ScreenEpochs = append(rec.ScreenEpochs, nil)
			}
			row := make([]float32, len(scores))
			for i, v := range scores {
				row[i] = float32(v)
			}
			rec.ScreenEpochs[k] = append(rec.ScreenEpochs[k], row)
		}
	}
	cfg := opts.config(hidden)
	cfg.Scaler = scaler
	var (
		run    *training.Run
		screen []float64 // the shares the threshold's rules flag on the screening's scores
		// the screening's scores, kept for the learned count (count.Inputs)
		screenScores []float64
	)
	if meth.Ensemble {
		run, screen, screenScores, err = fitScreened(x, trainN, ds.D, cfg, meth, seeds, mo, opts, hooks, screenRecord)
		if trainN < ds.N {
			screenScores = nil
		}
	} else {
		members := make([]training.Member, len(seeds))
		for i, s := range seeds {
			if opts.Method == Proposed {
				// A rule may keep state: one per member.
				if mo.Rule, err = opts.delta(); err != nil {
					return nil, err
				}
			}
			if members[i], err = meth.NewMember(s, n, mo); err != nil {
				return nil, fmt.Errorf("udocc: %w", err)
			}
		}
		run, err = training.FitGroup(ds.X, ds.N, ds.D, cfg, members, hooks)
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, err
		}
		return nil, fmt.Errorf("udocc: %w", err)
	}

	meta := &models.Meta{
		Format: models.Format, Udocc: Version, Libtorch: torch.Version(), Method: string(opts.Method),
		Data: ds.Name, Sizes: models.Sizes(ds.D, hidden), Scaler: *scaler,
	}
	if ds.Named {
		meta.Features = ds.Features
	}
	if !ds.Selection.IsZero() {
		meta.Selection = &ds.Selection
	}
	m, err := fromRun(run, meta, opts.Device, meth.Ensemble)
	if m != nil {
		m.threads = opts.Threads
	}
	// The run is done with: its networks and its results (K scores a row) go before the
	// model rescores ds with its own networks, which it does in chunks; a collection now
	// lets the new scores take the results' memory instead of adding to it (campaign's
	// fit peaks at 278 MB with it, 295 MB without: one of the three collections a fit
	// forces, each kept for such a measured peak).
	run.Close()
	runtime.GC()
	if err != nil {
		return nil, err
	}
	if err := m.finish(ctx, ds, opts, rk, screen, screenScores, fitrecord.From(ctx)); err != nil {
		m.Close()
		return nil, err
	}
	m.remember(ds, medians, missing)
	m.meta.Tail = newTail(m.scores)
	return m, nil
}

// trainingRows are the rows the ensemble trains on (row-major, d a row) and their number:
// every row of ds, or, where ds has more than limit > 0 rows, limit of them drawn
// without replacement from seed, in table order (Options.TrainRows). A data-parallel
// rank (dist) trains on its whole block.
func trainingRows(ds *data.Dataset, limit int, seed uint64, dist bool) ([]float32, int) {
	if dist || limit <= 0 || ds.N <= limit {
		return ds.X, ds.N
	}
	// Floyd's sampling: limit distinct rows in O(limit), whatever the table's size.
	r := rand.New(rand.NewPCG(seed, 0x7a1e5))
	picked := make(map[int]struct{}, limit)
	for j := ds.N - limit; j < ds.N; j++ {
		i := r.IntN(j + 1)
		if _, ok := picked[i]; ok {
			i = j
		}
		picked[i] = struct{}{}
	}
	rows := make([]int, 0, limit)
	for i := range picked {
		rows = append(rows, i)
	}
	slices.Sort(rows)
	x := make([]float32, 0, limit*ds.D)
	for _, i := range rows {
		x = append(x, ds.Row(i)...)
	}
	return x, limit
}

// fitScreened is the ensemble's fit (training.FitScreened in its two steps) and the
// shares of rows its threshold's rules flag, taken from the screening's scores between
// the two: the rules' shares on them are all the threshold needs of them
// (ensembleThreshold), so they are let go before the final fit rather than held through
// it (8 bytes a row). The shares are nil where there is no screening or
// Options.Contamination sets the threshold. A non-nil record keeps the screening's
// scores.
//
// With the learned count (Options.Count LearnedCount) there are no rule shares: the
// screening's scores themselves are returned where the count's model reads them
// (count.Inputs).
func fitScreened(x []float32, n, d int, cfg training.Config, meth training.Method, seeds []uint64, mo training.MethodOptions, opts Options, hooks *training.Hooks, record *fitrecord.Record) (*training.Run, []float64, []float64, error) {
	if cfg.ScreenEpochs == 0 {
		run, _, err := training.FitScreened(x, n, d, cfg, meth, seeds, mo, hooks)
		return run, nil, nil, err
	}
	sc, err := training.Screen(x, n, d, cfg, meth, seeds, mo, hooks)
	if err != nil {
		return nil, nil, nil, err
	}
	var screen, kept []float64
	switch {
	case opts.learnedCount():
		cm, err := count.Default()
		if err != nil {
			return nil, nil, nil, err
		}
		if cm.Reads(count.Screen) {
			kept = sc.Scores
		}
	case opts.Contamination == 0:
		if screen, err = ruleShares(sc.Scores, opts); err != nil {
			return nil, nil, nil, err
		}
	}
	if record != nil {
		record.Screen = sc.Scores
	}
	sc.Scores = nil
	run, err := training.FitKept(x, n, d, cfg, meth, seeds, mo, sc, hooks)
	return run, screen, kept, err
}

// ruleShares are the shares of scores that each rule of opts.Count flags
// (threshold.ShareOf).
func ruleShares(scores []float64, opts Options) ([]float64, error) {
	c, err := opts.count()
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(c))
	for i, r := range c {
		if out[i], err = threshold.ShareOf(r, scores); err != nil {
			return nil, fmt.Errorf("threshold %s: %w", r.Name(), err)
		}
	}
	return out, nil
}

// ensembleThreshold is the ensemble's threshold on its combined scores, and the 80 %
// interval of the share of anomalies where the count gives one (nil otherwise): the top
// share opts.Contamination when given; else, for each rule of opts.Count, the
// share it flags on the final scores or, after a screening fit, on the screening's
// scores (screen: the screening sees every row) where that is more (docs/threshold.md
// A.4: on the screening's scores two-means splits off only a few extreme rows of mnist
// and thyroid), and the geometric mean of those shares for several rules
// (threshold.Combination); one rule without a screening is the rule's own threshold.
// The default, defaultCount, comes with the interval
// training.DefaultInterval gives around its share.
func ensembleThreshold(scores []float64, screen []float64, opts Options) (float64, []float64, error) {
	if opts.Contamination > 0 {
		t, err := threshold.Contamination(scores, opts.Contamination)
		return t, nil, err
	}
	c, err := opts.count()
	if err != nil {
		return 0, nil, err
	}
	n := len(scores)
	if len(c) == 1 && screen == nil {
		t, err := c[0].Threshold(scores)
		if err != nil || !opts.kmeansCount() {
			return t, nil, err
		}
		return t, defaultInterval(float64(threshold.Count(scores, t)) / float64(n)), nil
	}
	shares, err := ruleShares(scores, opts)
	if err != nil {
		return 0, nil, err
	}
	if screen != nil {
		for i := range shares {
			shares[i] = max(shares[i], screen[i])
		}
	}
	share := shares[0]
	if len(c) > 1 {
		if share, err = threshold.GeoShare(shares, n); err != nil {
			return 0, nil, err
		}
	}
	t, err := threshold.TopCount(scores, min(int(share*float64(n)+0.5), n-1))
	if err != nil || !opts.kmeansCount() {
		return t, nil, err
	}
	return t, defaultInterval(share), nil
}

// learnedThreshold is the learned count cm's threshold on in.Final: the
// top share it estimates, and its 80 % interval; meta records whether the count is to
// be trusted and the model's version.
func learnedThreshold(cm *count.Model, in *count.Inputs, meta *models.Meta) (float64, []float64, error) {
	est, err := cm.Estimate(in)
	if err != nil {
		return 0, nil, err
	}
	n := len(in.Final)
	t, err := threshold.TopCount(in.Final, min(max(int(est.Share*float64(n)+0.5), 1), n-1))
	if err != nil {
		return 0, nil, err
	}
	reliable := est.Reliable
	meta.CountReliable, meta.CountModel = &reliable, cm.Version
	return t, []float64{est.Low, est.High}, nil
}

// defaultInterval is the 80 % interval training.DefaultInterval gives around the default
// count's share.
func defaultInterval(share float64) []float64 {
	iv := training.DefaultInterval
	return []float64{min(share*math.Exp(iv.Low), 1), min(share*math.Exp(iv.High), 1)}
}

// fromRun moves the run's networks into a Model of single-member groups, each the group
// that Load reads from the file Save writes of it, so that a fitted model and a loaded
// one score rows by the same code on the same weights.
func fromRun(run *training.Run, meta *models.Meta, device string, ensemble bool) (*Model, error) {
	m := &Model{meta: meta, device: device, thr: math.Inf(1)}
	fail := func(err error) (*Model, error) {
		m.Close()
		return nil, fmt.Errorf("udocc: %w", err)
	}
	for k, r := range run.Results {
		mem := models.Member{Seed: r.Member.Seed, Network: fmt.Sprintf("member-%d.pt", r.Member.Seed)}
		g, err := run.Network(k)
		if err != nil {
			return fail(err)
		}
		m.nets = append(m.nets, g)
		if ensemble {
			mem.Autoencoder = fmt.Sprintf("autoencoder-%d.pt", r.Member.Seed)
			if g, err = run.Autoencoder(k); err != nil {
				return fail(err)
			}
			m.aes = append(m.aes, g)
		} else if r.Labels != nil {
			t := r.Threshold
			if math.IsInf(t, 1) && len(r.Scores) > 0 {
				// The rule flagged no row (Otsu on scores that are all equal: no cut). The
				// largest training score labels the training rows alike, and, unlike +Inf,
				// is a number model.json can hold; a new row above it is flagged.
				t = slices.Max(r.Scores)
			}
			mem.Threshold = &t
		}
		meta.Members = append(meta.Members, mem)
		m.history = append(m.history, epochsOf(r.History))
		m.members = append(m.members, tool.Member{Seed: r.Member.Seed, Threshold: math.Inf(1), PretrainLoss: r.PretrainLoss})
	}
	if err := m.checkFinite(); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// finish scores the training rows ds with the model's networks, and for the ensemble
// method learns the combination and the threshold from those scores. In a data-parallel
// fit ds is this rank's block and the scores of every block are gathered. A non-nil
// record keeps every member's distances and reconstruction errors. ctx is checked
// between blocks of rows in a fit of one process (the ranks of a data-parallel fit
// score on together).
func (m *Model) finish(ctx context.Context, ds *data.Dataset, opts Options, rk *ranks, screen, screenScores []float64, record *fitrecord.Record) error {
	if rk != nil {
		ctx = context.Background()
	}
	dist, rec, err := m.memberScores(ctx, ds)
	if err != nil {
		return err
	}
	if rk != nil {
		for _, xs := range [][][]float32{dist, rec} {
			for k := range xs {
				if xs[k], err = rk.gather32(xs[k]); err != nil {
					return err
				}
			}
		}
	}
	if err := m.checkScored(ds, rk == nil, dist, rec, nil); err != nil {
		return err
	}
	if record != nil {
		// Copies of the outer slices: the combination lets rec's vectors go from its own.
		record.Dist, record.Rec = slices.Clone(dist), slices.Clone(rec)
	}
	if m.Method() == Ensemble {
		var (
			in *count.Inputs
			cm *count.Model
		)
		if opts.learnedCount() {
			if cm, err = count.Default(); err != nil {
				return fmt.Errorf("udocc: %w", err)
			}
			in = &count.Inputs{Screen: screenScores}
			if cm.Reads(count.Agreement) {
				// They read the members' scores, which the combination takes.
				in.MemberAgreement, in.DistRecAgreement = count.Agreements(dist, rec)
			}
		}
		// FitEnsemble's scores are ens.Score(dist, rec), computed once.
		ens, scores, err := models.FitEnsembleTaking(dist, rec, training.DistanceWeight)
		if err != nil {
			return fmt.Errorf("udocc: %w", err)
		}
		m.meta.Ensemble = ens
		var (
			thr      float64
			interval []float64
		)
		if in != nil {
			in.Final = scores
			thr, interval, err = learnedThreshold(cm, in, m.meta)
		} else {
			thr, interval, err = ensembleThreshold(scores, screen, opts)
		}
		if err != nil {
			return fmt.Errorf("udocc: %w", err)
		}
		m.meta.Threshold, m.meta.ThresholdRule, m.meta.RatioInterval = &thr, opts.Rule(), interval
		m.thr, m.scores = thr, scores
	}
	// Each member's distances are widened for Members as the float32 ones are let go, one
	// member at a time (widenEach), after the combination. (A forced collection here made
	// no measurable difference to a fit's peak RSS, 278 MB on campaign either way, and a
	// library does not force collections it cannot show are needed: issue 41.)
	wide := widenEach(dist)
	if m.Method() != Ensemble {
		m.thr = models.CombinedThreshold(m.meta.Thresholds())
		if len(wide) > 1 {
			for k, div := range models.MemberScales(wide, m.meta.Thresholds()) {
				m.meta.Members[k].Scale = &div
			}
		}
		m.scores, _ = models.CombineMembers(wide, m.meta.Thresholds(), m.meta.Scales())
	}
	if err := m.checkScored(ds, rk == nil, nil, nil, m.scores); err != nil {
		return err
	}
	m.labels = m.label(m.scores)
	if err := m.fitNormal(ds, rk); err != nil {
		return err
	}
	for k, thr := range m.meta.Thresholds() {
		mem := &m.members[k]
		mem.Threshold, mem.Scores = thr, wide[k]
		mem.Labels = mem.Label(mem.Scores)
	}
	return nil
}

// Scores are the anomaly scores of the training rows, higher is more anomalous (a copy);
// nil for a loaded model.
func (m *Model) Scores() []float64 { return slices.Clone(m.scores) }

// Threshold is in score units: a row is anomalous when its score is above it. It is
// +Inf for method oc, which ranks rows without labelling them.
func (m *Model) Threshold() float64 { return m.thr }

// Labels are the training rows' labels, true = anomaly (a copy); nil for method oc and
// for a loaded model.
func (m *Model) Labels() []bool { return slices.Clone(m.labels) }

// RatioInterval is the 80 % interval of the share of anomalies that the default count
// (Options.Count nil: LearnedCount) gives beside its selected ratio,
// measured on real tables (docs/threshold.md A.0); NaN, NaN for another rule, a given
// Options.Contamination and the paper's methods.
func (m *Model) RatioInterval() (low, high float64) {
	if iv := m.meta.RatioInterval; len(iv) == 2 {
		return iv[0], iv[1]
	}
	return math.NaN(), math.NaN()
}

// CountReliable says whether the learned count (LearnedCount) trusts its count: false
// where the scores do not separate and the interval is the prior's. ok is false for
// another count, a given Options.Contamination and the paper's methods.
func (m *Model) CountReliable() (reliable, ok bool) {
	if m.meta.CountReliable == nil {
		return false, false
	}
	return *m.meta.CountReliable, true
}

// Ratio is the selected anomaly ratio: the share of the training rows labelled
// anomalous; NaN where there are no labels.
func (m *Model) Ratio() float64 {
	if m.labels == nil {
		return math.NaN()
	}
	n := 0
	for _, l := range m.labels {
		if l {
			n++
		}
	}
	return float64(n) / float64(len(m.labels))
}

// historyCopy is every member's per-epoch fine-tuning record (loss, training set size,
// the selector's δ* and selected ratio, SB's radius), member by member in seed order;
// nil for a loaded model. It is a copy.
func (m *Model) historyCopy() [][]tool.Epoch {
	if m.history == nil {
		return nil
	}
	out := make([][]tool.Epoch, len(m.history))
	for k, h := range m.history {
		out[k] = slices.Clone(h)
		for e := range out[k] {
			out[k][e].Curve = slices.Clone(out[k][e].Curve)
		}
	}
	return out
}

// membersCopy are the model's members in seed order, with their training rows' scores and
// labels for a model that Fit returned (a copy).
func (m *Model) membersCopy() []tool.Member {
	if m.members == nil { // a loaded model
		var out []tool.Member
		for k, thr := range m.meta.Thresholds() {
			out = append(out, tool.Member{Seed: m.meta.Members[k].Seed, Threshold: thr})
		}
		return out
	}
	out := slices.Clone(m.members)
	for k := range out {
		mem := &out[k]
		mem.Scores, mem.Labels, mem.PretrainLoss = slices.Clone(mem.Scores), slices.Clone(mem.Labels), slices.Clone(mem.PretrainLoss)
	}
	return out
}

// Method is the model's method.
func (m *Model) Method() Method { return Method(m.meta.Method) }

// Close frees the networks (an io.Closer); it is safe to call more than once (a later
// call does nothing and returns nil), and while other goroutines score, explain or save
// with the model: it waits for those calls to end, and the calls made after it has
// begun fail with ErrClosed.
func (m *Model) Close() error {
	if !m.calls.close() {
		return nil
	}
	for _, g := range append(m.nets, m.aes...) {
		g.Close()
	}
	m.nets, m.aes = nil, nil
	return nil
}

// Features are the names of the columns the model was trained on, in order; nil where
// the table named none, so that new tables' columns match by position. It is a copy.
func (m *Model) Features() []string { return slices.Clone(m.meta.Features) }

// selection is how the training table's columns were chosen from its file (an id
// column, columns kept or dropped; package data); the zero Selection where every column
// was taken. Reading a new table with it gives the model's columns.
func (m *Model) selection() data.Selection {
	if m.meta.Selection == nil {
		return data.Selection{}
	}
	s := *m.meta.Selection
	s.Columns, s.Drop = slices.Clone(s.Columns), slices.Clone(s.Drop)
	return s
}

// Device is the device the model's networks are on: "cpu", "cuda" or "cuda:N".
func (m *Model) deviceName() string { return m.device }

// inputs is the number of columns the model takes.
func (m *Model) inputs() int { return m.meta.Sizes[0] }

// hiddenWidths are the encoder's layer widths after the input (a copy).
func (m *Model) hiddenWidths() []int { return slices.Clone(m.meta.Sizes[1:]) }

// constantColumns are the training columns that held one value throughout; the
// standardisation leaves them 0 for every row. It is a copy.
func (m *Model) constantColumns() []int { return slices.Clone(m.meta.Scaler.ConstantColumns) }

// distanceWeight is the ensemble's w: the distances' part of the combined score, the
// reconstruction errors' being 1 − w (Attribution); NaN for the paper's methods.
func (m *Model) distanceWeight() float64 {
	if m.meta.Ensemble == nil {
		return math.NaN()
	}
	return m.meta.Ensemble.DistanceWeight
}

// label labels scores by the model's Threshold, true above it; nil for a model without
// one (oc).
func (m *Model) label(scores []float64) []bool {
	if math.IsInf(m.thr, 1) {
		return nil
	}
	return threshold.Labels(scores, m.thr)
}

// SetThreads sets the CPU threads on which the model scores and explains rows: n, or
// every core the process may use for 0 (the default). Results are the same bits for any
// count. The count holds during the model's calls only (Options.Threads).
func (m *Model) SetThreads(n int) { m.threads = n }
