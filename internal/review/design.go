package review

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Next returns k ranks (fewer only when fewer rows remain) to ask in the next round
// given the answers so far, never one answered or pending (asked, not yet answered).
// The round is max(Round)+1; the same (n, answers, pending, k, seed, prior) give the
// same ranks, in ascending order.
//
// The design: the strata of strata(n), the ranks cut at the top 0.1 %, 0.2 %, 0.5 %,
// 1 %, 2 %, 5 %, 10 %, 20 %, 50 % and the rest. Each stratum of the top 1 % not yet asked
// gets one row first (Method.FirstPass), top first, so that the user sees the rows the
// model flags first. The rest of the round goes one row at a time to the stratum where
// one more answer most reduces the expected posterior variance of ln(count)
// (modelAllocate; Method.Neyman: the greedy Neyman allocation instead). Rows the user
// answered outside the design count as known and are never asked. Within a stratum the
// rows are drawn uniformly among those not yet known, from a stream of (seed, round,
// stratum).
//
// The choice depends only on the ranks, the prior and the answers already given, never
// on an answer not yet seen, so the design is ignorable for the likelihood of Calibrate
// (Rubin 1976, "Inference and missing data"; Gelman et al., BDA3 §8.2-8.3): the
// posterior of the curve is the same as if the rows had been fixed in advance.
func Next(n int, answers []Answer, pending []int, k int, seed uint64, prior Prior) ([]int, error) {
	return Method{}.Next(n, answers, pending, k, seed, prior)
}

// Next is Next with md's settings. With md.Neyman the rows after the first of each
// stratum go one at a time to the stratum h whose next row most reduces the variance of
// the stratified count T̂ = Σ_h N_h p̂_h (a greedy Neyman allocation, Cochran 1977, §5.5):
//
//	gain_h = N_h² p_h (1-p_h) (1/k_h - 1/(k_h+1)) (N_h - k_h)/N_h,
//
// with N_h the stratum's rows less those the user answered outside the design, k_h the
// design's rows asked there (answered, pending or picked in this round), and p_h the
// stratum's rate (a_h+½)/(m_h+1) from its m_h design answers, a_h of them anomalies,
// made non-increasing down the ranks by pool-adjacent-violators.
func (md Method) Next(n int, answers []Answer, pending []int, k int, seed uint64, prior Prior) ([]int, error) {
	kn, err := check(n, answers)
	if err != nil {
		return nil, err
	}
	if k < 1 {
		return nil, &ArgError{Arg: "k", Value: float64(k), Want: "at least 1 row"}
	}
	_, mu, sd, err := prior.resolve()
	if err != nil {
		return nil, err
	}
	curve, scale, err := md.settings()
	if err != nil {
		return nil, err
	}
	taken := map[int]bool{}
	for r := range kn.label {
		taken[r] = true
	}
	for i, r := range pending {
		if r < 1 || r > n {
			return nil, &RankError{Rank: r, N: n, Index: i, Pending: true}
		}
		taken[r] = true
	}
	fracs := md.Strata
	if fracs == nil {
		fracs = stratumFracs
	}
	st := strataAt(n, fracs)
	H := len(st)
	size := make([]int, H)  // N_h less the user's rows
	asked := make([]int, H) // k_h
	m := make([]int, H)     // design answers
	a := make([]int, H)     // anomalies among them
	free := make([]int, H)  // rows not yet known
	for h, s := range st {
		size[h] = s.hi - s.lo
		free[h] = size[h]
	}
	for r := range taken {
		free[stratumOf(st, r)]--
	}
	for r, y := range kn.label {
		h := stratumOf(st, r)
		if !kn.design[r] {
			size[h]--
			continue
		}
		asked[h]++
		m[h]++
		if y {
			a[h]++
		}
	}
	for r := range taken {
		if _, ok := kn.label[r]; !ok {
			asked[stratumOf(st, r)]++ // pending
		}
	}

	// p_h from the design's answers, smoothed and made monotone.
	p := make([]float64, H)
	w := make([]float64, H)
	for h := range p {
		p[h] = (float64(a[h]) + 0.5) / float64(m[h]+1)
		w[h] = float64(m[h] + 1)
	}
	p = pav(p, w)

	want := make([]int, H) // rows to draw in each stratum this round
	left := k
	first := md.FirstPass
	if first == 0 {
		first = DefaultFirstPass
	}
	firstTo := int(math.Round(first * float64(n)))
	for h := 0; h < H && left > 0 && st[h].hi <= firstTo; h++ {
		if asked[h] == 0 && free[h] > 0 {
			want[h]++
			asked[h]++
			left--
		}
	}
	if !md.Neyman {
		modelAllocate(n, kn, mu, sd*scale, curve, st, size, free, asked, want, left)
		left = 0
	}
	for ; left > 0; left-- {
		best, bestGain := -1, -1.0
		for h := range H {
			if want[h] >= free[h] || size[h] <= 0 {
				continue
			}
			Nh, kh := float64(size[h]), float64(max(asked[h], 1))
			g := Nh * Nh * p[h] * (1 - p[h]) * (1/kh - 1/(kh+1)) * (Nh - float64(asked[h])) / Nh
			if g > bestGain {
				best, bestGain = h, g
			}
		}
		if best < 0 {
			break
		}
		want[best]++
		asked[best]++
	}

	round := uint64(kn.round + 1)
	var out []int
	for h, s := range st {
		if want[h] == 0 {
			continue
		}
		rng := rand.New(rand.NewPCG(seed, round<<16|uint64(h)))
		pool := make([]int, 0, free[h])
		for r := s.lo + 1; r <= s.hi; r++ {
			if !taken[r] {
				pool = append(pool, r)
			}
		}
		// Partial Fisher–Yates: the first want[h] of a uniform permutation of pool.
		for i := 0; i < want[h]; i++ {
			j := i + rng.IntN(len(pool)-i)
			pool[i], pool[j] = pool[j], pool[i]
			out = append(out, pool[i])
		}
	}
	slices.Sort(out)
	return out, nil
}

// pav is the non-increasing least-squares fit to rates with weights w
// (pool-adjacent-violators; Barlow et al. 1972), top stratum first.
func pav(rates, w []float64) []float64 {
	type block struct {
		r, w float64
		c    int
	}
	var bs []block
	for i := range rates {
		bs = append(bs, block{rates[i], w[i], 1})
		for len(bs) > 1 && bs[len(bs)-2].r < bs[len(bs)-1].r {
			b2, b1 := bs[len(bs)-1], bs[len(bs)-2]
			bs = bs[:len(bs)-2]
			ww := b1.w + b2.w
			bs = append(bs, block{(b1.r*b1.w + b2.r*b2.w) / ww, ww, b1.c + b2.c})
		}
	}
	out := make([]float64, 0, len(rates))
	for _, b := range bs {
		for range b.c {
			out = append(out, b.r)
		}
	}
	return out
}

// modelAllocate gives the round's left rows one at a time to the stratum where the
// next answer most reduces the expected posterior variance of ln T (a Bayesian
// sequential design: Chaloner and Verdinelli 1995, "Bayesian experimental design: a
// review", §2.1). For stratum h with p_jh the curve's mean chance over its rows at grid
// point j, and m_h the rows asked there but not answered (pending or picked this round),
//
//	EV_h(m) = Σ_{a=0..m} P(a) Var(ln T | a of m anomalies),
//	P(a) = Σ_j w_j Bin(a; m, p_jh),   w_j(a) ∝ w_j p_jh^a (1-p_jh)^(m-a),
//
// and the gain of one more row is EV_h(m_h) - EV_h(m_h+1). Strata are scored
// apart (each as if the others' rows were not asked), a greedy approximation. The
// posterior is Calibrate's.
func modelAllocate(n int, kn *known, mu, sd float64, curve []float64, st []stratum, size, free, asked, want []int, left int) {
	ps := posterior(n, kn, mu, sd, math.Inf(1), curve)
	g, live, G := ps.g, ps.live, len(ps.g.share)
	H := len(st)
	lnT := make([]float64, len(live))
	w := make([]float64, len(live))
	for l, j := range live {
		lnT[l] = math.Log(max(ps.T[j], 0.5))
		w[l] = ps.w[j]
	}
	// ln p_jh and ln(1-p_jh) for each stratum and live point.
	lp := make([][]float64, H)
	l1p := make([][]float64, H)
	for h, s := range st {
		ph := make([]float64, len(live))
		for b := range g.lo {
			ov := min(g.hi[b], s.hi) - max(g.lo[b], s.lo)
			if ov <= 0 {
				continue
			}
			col, f := g.p[b*G:(b+1)*G], float64(ov)/float64(s.hi-s.lo)
			for l, j := range live {
				ph[l] += f * col[j]
			}
		}
		lp[h], l1p[h] = make([]float64, len(live)), make([]float64, len(live))
		for l, p := range ph {
			p = min(max(p, 1e-9), 1-1e-9)
			lp[h][l], l1p[h][l] = math.Log(p), math.Log1p(-p)
		}
	}
	// p_jh and 1-p_jh for each stratum and live point.
	ph := make([][]float64, H)
	for h := range H {
		ph[h] = make([]float64, len(live))
		for l := range live {
			ph[h][l] = math.Exp(lp[h][l])
		}
	}
	ev := func(h, mm int) float64 {
		// u_l(a) = w_l C(mm, a) p^a (1-p)^(mm-a), built up over a by the ratio
		// u(a+1)/u(a) = (mm-a)/(a+1) · p/(1-p).
		u := make([]float64, len(live))
		ratio := make([]float64, len(live))
		for l := range live {
			u[l] = w[l] * math.Exp(float64(mm)*l1p[h][l])
			ratio[l] = ph[h][l] / (1 - ph[h][l])
		}
		total := 0.0
		for a := 0; a <= mm; a++ {
			var s0, s1, s2 float64
			for l, x := range u {
				s0 += x
				s1 += x * lnT[l]
				s2 += x * lnT[l] * lnT[l]
			}
			if s0 > 0 {
				total += s2 - s1*s1/s0 // P(a) Var(ln T | a) = s0 (s2/s0 - (s1/s0)²)
			}
			f := float64(mm-a) / float64(a+1)
			for l := range u {
				u[l] *= f * ratio[l]
			}
		}
		return total
	}
	pend := make([]int, H) // asked, not answered: pending and this round's picks
	cur := make([]float64, H)
	next := make([]float64, H) // EV with one more row
	for h := range H {
		pend[h] = asked[h] - designAnswered(kn, st[h])
		cur[h] = ev(h, pend[h])
		next[h] = ev(h, pend[h]+1)
	}
	for ; left > 0; left-- {
		best, bestGain := -1, math.Inf(-1)
		for h := range H {
			if want[h] >= free[h] || size[h] <= 0 {
				continue
			}
			if gain := cur[h] - next[h]; gain > bestGain {
				best, bestGain = h, gain
			}
		}
		if best < 0 {
			return
		}
		want[best]++
		asked[best]++
		pend[best]++
		cur[best] = next[best]
		next[best] = ev(best, pend[best]+1)
	}
}

// designAnswered is the number of design answers in stratum s.
func designAnswered(kn *known, s stratum) int {
	c := 0
	for r := range kn.design {
		if s.lo < r && r <= s.hi {
			c++
		}
	}
	return c
}
