package bench

import (
	"bytes"
	"fmt"
	"time"
)

// groupTime is one lockstep group's wall time, from any of its lines.
type groupTime struct {
	size      int
	pre, fine float64
	epoch     float64 // mean fine-tuning epoch, seconds
}

// writeTimings gives the wall time per data set, per run and per epoch, and the grid's
// total over its sessions.
func (r *report) writeTimings(b *bytes.Buffer) {
	b.WriteString("## Wall time\n\n")
	b.WriteString("Members of a group train in lockstep, so pretraining (one autoencoder per seed) and fine-tuning times are the group's; *per run* divides the group's time by its members.\n\n")
	b.WriteString("| data set | runs | groups | mean group size | pretraining s / group | fine-tuning s / group | ms / fine-tuning epoch (group) | s / run |\n|---|---|---|---|---|---|---|---|\n")
	var all float64
	for _, ds := range r.datasets {
		groups := map[string]groupTime{}
		runs := 0
		for _, m := range r.methods {
			c := r.cell(ds, m)
			if c == nil {
				continue
			}
			for _, l := range c.lines {
				runs++
				t := l.Timing
				groups[l.Session+"|"+t.GroupID] = groupTime{t.GroupSize, t.PretrainSeconds, t.FinetuneSeconds, meanStd(t.EpochSeconds).Mean}
			}
		}
		var size, pre, fine, epoch, total float64
		for _, g := range groups {
			size += float64(g.size)
			pre += g.pre
			fine += g.fine
			epoch += g.epoch
			total += g.pre + g.fine
		}
		k := float64(len(groups))
		all += total
		fmt.Fprintf(b, "| %s | %d | %d | %.1f | %.2f | %.2f | %.1f | %.3f |\n", ds, runs, len(groups), size/k, pre/k, fine/k, 1000*epoch/k, total/size)
	}
	fmt.Fprintf(b, "\nTraining time summed over the groups used here: %s.\n\n", dur(all))
	r.writeSessions(b)
}

// writeSessions lists the invocations and the grid's total wall time.
func (r *report) writeSessions(b *bytes.Buffer) {
	if len(r.sessions) == 0 {
		b.WriteString("No sessions.json: the grid's wall time is unknown.\n\n")
		return
	}
	last := map[string]time.Time{}
	for _, c := range r.cells {
		for _, l := range c.lines {
			if t, err := time.Parse(time.RFC3339Nano, l.Finished); err == nil && t.After(last[l.Session]) {
				last[l.Session] = t
			}
		}
	}
	b.WriteString("| session start (UTC) | wall time | planned | skipped | trained | failed | jobs | group | device | CPUs |\n|---|---|---|---|---|---|---|---|---|---|\n")
	var total time.Duration
	killed := 0
	for _, s := range r.sessions {
		wall := "—"
		switch {
		case s.End != nil:
			d := s.End.Sub(s.Start)
			total += d
			wall = dur(d.Seconds())
		case !last[s.ID].IsZero():
			d := last[s.ID].Sub(s.Start)
			total += d
			killed++
			wall = dur(d.Seconds()) + " to its last line (killed)"
		default:
			killed++
			wall = "killed before its first line"
		}
		fmt.Fprintf(b, "| %s | %s | %d | %d | %d | %d | %d | %s | %s | %d |\n",
			s.Start.Format("2006-01-02 15:04:05"), wall, s.Planned, s.Skipped, s.Trained, s.Failed, s.Jobs, s.Group, s.Device, s.CPUs)
	}
	fmt.Fprintf(b, "\n**Total wall time of the grid: %s** over %d session(s)", dur(total.Seconds()), len(r.sessions))
	if killed > 0 {
		fmt.Fprintf(b, ", %d of them killed (counted to their last line; lines of groups in flight were lost and retrained)", killed)
	}
	b.WriteString(".\n\n")
}

func dur(s float64) string {
	d := time.Duration(s * float64(time.Second))
	if d < time.Minute {
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
