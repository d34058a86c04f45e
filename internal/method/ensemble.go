package method

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/udocc/udocc/data"
	"github.com/udocc/udocc/internal/count"
	"github.com/udocc/udocc/internal/models"
	"github.com/udocc/udocc/internal/threshold"
	"github.com/udocc/udocc/internal/torch"
	"github.com/udocc/udocc/internal/training"
)

// The default method, udocc's ensemble (docs/threshold.md). OC members are trained in
// lockstep from consecutive seeds, each with its pretraining autoencoder. They are
// fitted twice: a screening fit on every row, then a final fit without the rows it
// scored highest (training.FitScreened). A row's score combines the members'
// standardised distances and reconstruction errors (combination.go, its scales fitted
// on the training rows). The threshold comes from a count rule on the screening's and
// the final scores, a given contamination, or the learned count (package count).

// ensemble is the ensemble's fitted state.
type ensemble struct {
	nw         *Networks
	comb       *models.Ensemble
	thr        float64
	rule       string    // model.json's threshold_rule
	interval   []float64 // the 80 % interval of the share, or nil
	reliable   *bool     // the learned count's trust in its count, or nil
	countModel int       // the learned count's version, or 0
	// recon is the training rows' mean scaled reconstruction errors (meanOf with
	// comb.Recon), which the fit computed anyway: FineTune then scores the rows again
	// through the encoders alone, as it does not change the autoencoders. nil after
	// FineTune.
	recon []float64
}

func (e *ensemble) Networks() *Networks { return e.nw }
func (e *ensemble) Threshold() float64  { return e.thr }
func (e *ensemble) Close()              { e.nw.Close() }

// Marshal writes the members' files, the combination and the threshold into meta.
func (e *ensemble) Marshal(meta *models.Meta) {
	thr := e.thr
	meta.Members = e.nw.memberFiles()
	meta.Ensemble = e.comb
	meta.Threshold, meta.ThresholdRule, meta.RatioInterval = &thr, e.rule, e.interval
	meta.CountReliable, meta.CountModel = e.reliable, e.countModel
}

// loadEnsemble is the saved ensemble of meta (CheckMeta: it has the ensemble
// and threshold fields) on its networks nw.
func loadEnsemble(meta *models.Meta, nw *Networks) *ensemble {
	return &ensemble{nw: nw, comb: meta.Ensemble, thr: *meta.Threshold, rule: meta.ThresholdRule,
		interval: meta.RatioInterval, reliable: meta.CountReliable, countModel: meta.CountModel}
}

// Score combines each row's member distances and reconstruction errors by the
// combination fitted on the training rows (scoreCombined).
func (e *ensemble) Score(ctx context.Context, ds *data.Dataset, gauss []float64) ([]float64, [][]float64, error) {
	dist, rec, err := e.nw.outputs(ctx, ds)
	if err != nil {
		return nil, nil, err
	}
	if err := checkScored(e.nw.Scaler, ds, true, dist, rec, nil); err != nil {
		return nil, nil, err
	}
	s, err := scoreCombined(e.comb, dist, rec)
	if err != nil {
		return nil, nil, fmt.Errorf("udocc: %w", err)
	}
	if err := checkScored(e.nw.Scaler, ds, true, nil, nil, s); err != nil {
		return nil, nil, err
	}
	if gauss != nil {
		mixGaussian(e.comb, s, gauss) // as the fit mixed it (fitGaussian)
	}
	return s, widenEach(dist), nil
}

// fitEnsemble is the ensemble's Fit.
//
// Its training rows are every row, or a sample (Config.TrainRows). On a sample the
// screening scores the sample's rows, not the table's: what reads them row by row beside
// the final scores (the count's agreement features, a Trace's record of the screening)
// has no rows to pair them with, and gets none.
func fitEnsemble(ctx context.Context, t Table, cfg Config) (Fitted, *Trace, error) {
	ds := t.DS
	x, trainN := trainingRows(ds, cfg.TrainRows, cfg.SampleSeed, t.Dist != nil)
	tr := &Trace{}
	hooks := cfg.hooks(ctx)
	recordScreen := cfg.Trace && trainN == ds.N
	if recordScreen {
		hooks.ScreenEpoch = func(k, e int, scores []float64) {
			for len(tr.ScreenEpochs) <= k {
				tr.ScreenEpochs = append(tr.ScreenEpochs, nil)
			}
			row := make([]float32, len(scores))
			for i, v := range scores {
				row[i] = float32(v)
			}
			tr.ScreenEpochs[k] = append(tr.ScreenEpochs[k], row)
		}
		hooks.ScreenNetwork = func(stage string, e int, g *torch.Group) {
			if stage != "pretrain" {
				return
			}
			errs, err := g.Reconstruction()
			if err != nil {
				return // a trace: the fit reports its own errors
			}
			k := g.K()
			n := len(errs) / k
			for len(tr.ScreenPretrain) < k {
				tr.ScreenPretrain = append(tr.ScreenPretrain, nil)
			}
			for kk := 0; kk < k; kk++ {
				tr.ScreenPretrain[kk] = append(tr.ScreenPretrain[kk], errs[kk*n:(kk+1)*n])
			}
		}
	}
	run, screen, screenScores, err := fitScreened(x, trainN, ds.D, cfg, hooks, tr, recordScreen)
	if trainN < ds.N {
		screenScores = nil
	}
	if err != nil {
		return nil, nil, trainErr(ctx, err)
	}
	nw, err := takeNetworks(run, true, t.Scaler, models.Sizes(ds.D, cfg.Train.Hidden))
	tr.Members = traceMembers(run)
	// The run is done with: its networks and its results (K scores a row) go before the
	// networks rescore the table, which they do in chunks; a collection now lets the new
	// scores take the results' memory instead of adding to it (campaign's fit peaks at
	// 278 MB with it, 295 MB without: one of the collections a fit forces, each kept for
	// such a measured peak).
	run.Close()
	runtime.GC()
	if err != nil {
		return nil, nil, err
	}
	e := &ensemble{nw: nw, rule: cfg.Rule}
	if err := e.fitCombination(ctx, t, cfg, tr, screen, screenScores); err != nil {
		nw.Close()
		return nil, nil, err
	}
	return e, tr, nil
}

// fitCombination scores every row with the final networks, and fits the combination
// and the threshold on those scores; tr gets the scores and the members' distances.
func (e *ensemble) fitCombination(ctx context.Context, t Table, cfg Config, tr *Trace, screen, screenScores []float64) error {
	dist, rec, err := scoreRows(ctx, e.nw, t)
	if err != nil {
		return err
	}
	if cfg.Trace {
		// Copies of the outer slices: the combination lets rec's vectors go from its own.
		tr.Dist, tr.Rec = slices.Clone(dist), slices.Clone(rec)
	}
	var (
		in *count.Inputs
		cm *count.Model
	)
	if cfg.Learned {
		if cm, err = count.Default(); err != nil {
			return fmt.Errorf("udocc: %w", err)
		}
		in = &count.Inputs{Screen: screenScores}
		if cm.Reads(count.Agreement) {
			// They read the members' scores, which the combination takes.
			in.MemberAgreement, in.DistRecAgreement = count.Agreements(dist, rec)
		}
	}
	// fitCombination takes rec (fitCombinationTaking) and gives scoreCombined(comb, dist, rec),
	// computed once, and the rows' mean scaled reconstruction errors that FineTune may reuse.
	comb, scores, rm, err := fitCombination(dist, rec, DistanceWeight, true)
	if err != nil {
		return fmt.Errorf("udocc: %w", err)
	}
	e.recon = rm
	// The count reads the networks' scores, as it was learned on them (bench/notes/threshold.md
	// A.0: the fits that read every column, with no Gaussian); on a wide table whose
	// Gaussian is mixed in, the share they give is flagged on the mixed scores
	// (threshold.Transfer), so the Gaussian moves which rows are flagged, not how many.
	nets := scores
	if t.Gaussian != nil && cfg.GaussianWeight > 0 {
		scores = slices.Clone(nets)
		if err := fitGaussian(comb, scores, t.Gaussian, cfg.GaussianWeight); err != nil {
			return fmt.Errorf("udocc: %w", err)
		}
		tr.Networks = nets
	}
	e.comb = comb
	if in != nil {
		in.Final = nets
		e.thr, e.interval, err = e.learnedThreshold(cm, in)
	} else {
		e.thr, e.interval, err = ensembleThreshold(nets, screen, cfg)
	}
	if err == nil && tr.Networks != nil {
		e.thr, err = threshold.Transfer(scores, nets, e.thr)
	}
	if err != nil {
		return fmt.Errorf("udocc: %w", err)
	}
	// Each member's distances are widened as the float32 ones are let go, one member at
	// a time (widenEach), after the combination. (A forced collection here made no
	// measurable difference to a fit's peak RSS, 278 MB on campaign either way.)
	wide := widenEach(dist)
	if err := checkScored(e.nw.Scaler, t.DS, t.Dist == nil, nil, nil, scores); err != nil {
		return err
	}
	tr.Scores = scores
	for k := range tr.Members {
		tr.Members[k].Scores = wide[k] // members thresholded together: no labels of their own
	}
	return nil
}

// trainingRows are the rows the ensemble trains on (row-major, d a row) and their number:
// every row of ds, or, where ds has more than limit > 0 rows, limit of them drawn
// without replacement from seed, in table order (Config.TrainRows). A data-parallel
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
// Config.Contamination sets the threshold. With record, tr keeps the screening's scores.
//
// With the learned count (Config.Learned) there are no rule shares: the screening's
// scores themselves are returned where the count's model reads them (count.Inputs).
func fitScreened(x []float32, n, d int, cfg Config, hooks *training.Hooks, tr *Trace, record bool) (*training.Run, []float64, []float64, error) {
	if cfg.Train.ScreenEpochs == 0 {
		run, _, err := training.FitScreened(x, n, d, cfg.Train, cfg.Seeds, hooks)
		return run, nil, nil, err
	}
	sc, err := training.Screen(x, n, d, cfg.Train, cfg.Seeds, hooks)
	if err != nil {
		return nil, nil, nil, err
	}
	var screen, kept []float64
	switch {
	case cfg.Learned:
		cm, err := count.Default()
		if err != nil {
			return nil, nil, nil, err
		}
		if cm.Reads(count.Screen) {
			kept = sc.Scores
		}
	case cfg.Contamination == 0:
		if screen, err = ruleShares(sc.Scores, cfg.Count); err != nil {
			return nil, nil, nil, err
		}
	}
	if record {
		tr.Screen = sc.Scores
	}
	sc.Scores = nil
	run, err := training.FitKept(x, n, d, cfg.Train, cfg.Seeds, sc, hooks)
	return run, screen, kept, err
}

// ruleShares are the shares of scores that each rule of c flags (threshold.ShareOf).
func ruleShares(scores []float64, c threshold.Combination) ([]float64, error) {
	out := make([]float64, len(c))
	for i, r := range c {
		var err error
		if out[i], err = threshold.ShareOf(r, scores); err != nil {
			return nil, fmt.Errorf("threshold %s: %w", r.Name(), err)
		}
	}
	return out, nil
}

// ensembleThreshold is the ensemble's threshold on its combined scores, and the 80 %
// interval of the share of anomalies where the count gives one (nil otherwise).
//
// A given cfg.Contamination flags that top share. Else each rule of cfg.Count gives the
// share it flags on the final scores or, after a screening fit, on the screening's
// scores where that is more (screen: the screening sees every row). On the final scores
// alone two-means splits off only a few extreme rows of mnist and thyroid
// (bench/notes/threshold.md A.4). Several rules flag the geometric mean of their shares
// (threshold.Combination). One rule without a screening is the rule's own threshold.
// The kmeans rule alone comes with the interval DefaultInterval gives around its share.
func ensembleThreshold(scores []float64, screen []float64, cfg Config) (float64, []float64, error) {
	if cfg.Contamination > 0 {
		t, err := threshold.Contamination(scores, cfg.Contamination)
		return t, nil, err
	}
	c := cfg.Count
	n := len(scores)
	if len(c) == 1 && screen == nil {
		t, err := c[0].Threshold(scores)
		if err != nil || !cfg.KMeansInterval {
			return t, nil, err
		}
		return t, defaultInterval(float64(threshold.Count(scores, t)) / float64(n)), nil
	}
	shares, err := ruleShares(scores, c)
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
	if err != nil || !cfg.KMeansInterval {
		return t, nil, err
	}
	return t, defaultInterval(share), nil
}

// learnedThreshold is the learned count cm's threshold on in.Final: the top share it
// estimates, and its 80 % interval; e records whether the count is to be trusted and
// the count model's version.
func (e *ensemble) learnedThreshold(cm *count.Model, in *count.Inputs) (float64, []float64, error) {
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
	e.reliable, e.countModel = &reliable, cm.Version
	return t, []float64{est.Low, est.High}, nil
}

// defaultInterval is the 80 % interval DefaultInterval gives around the default
// count's share.
func defaultInterval(share float64) []float64 {
	iv := DefaultInterval
	return []float64{min(share*math.Exp(iv.Low), 1), min(share*math.Exp(iv.High), 1)}
}
