package bench

// task is one run of the grid: a data set's method spec and seed.
type task struct {
	spec Spec
	seed uint64
	key  Key
}

// work is the pending tasks of one data set, split into lockstep groups.
type work struct {
	d      *dataset
	groups [][]task
}

// pending lists the tasks of d not yet in done, methods in the given order and seeds
// within each method.
func pending(d *dataset, specs []Spec, seeds []uint64, done func(Key) bool) (todo []task, skipped int) {
	for _, s := range specs {
		rule := s.RuleLabel()
		for _, seed := range seeds {
			k := Key{Dataset: d.name, DataSHA: d.sha, Method: s.Name, Rule: rule, Seed: seed, Fingerprint: d.config.Fingerprint}
			if done(k) {
				skipped++
				continue
			}
			todo = append(todo, task{spec: s, seed: seed, key: k})
		}
	}
	return todo, skipped
}

// split groups tasks by mode: one group, one per seed (in order of first appearance) or
// one per task.
func split(tasks []task, mode GroupMode) [][]task {
	if len(tasks) == 0 {
		return nil
	}
	switch mode {
	case GroupRun:
		out := make([][]task, len(tasks))
		for i, t := range tasks {
			out[i] = []task{t}
		}
		return out
	case GroupSeed:
		var out [][]task
		at := map[uint64]int{}
		for _, t := range tasks {
			i, ok := at[t.seed]
			if !ok {
				i = len(out)
				at[t.seed] = i
				out = append(out, nil)
			}
			out[i] = append(out[i], t)
		}
		return out
	}
	return [][]task{tasks}
}

// seedsOf is the number of distinct seeds in a group: the autoencoders it pretrains.
func seedsOf(g []task) int {
	seen := map[uint64]bool{}
	for _, t := range g {
		seen[t.seed] = true
	}
	return len(seen)
}

// cost estimates a group's work for the progress bar in row-epochs: every pretraining
// epoch passes the n rows once per autoencoder, every fine-tuning epoch once per member.
// Small MLPs are dominated by per-batch overhead, so rows are a fair unit across data
// sets.
func cost(d *dataset, g []task) (pre, fine float64) {
	n := float64(d.ds.N)
	return float64(d.cfg.PretrainEpochs*seedsOf(g)) * n, float64(d.cfg.Epochs*len(g)) * n
}
