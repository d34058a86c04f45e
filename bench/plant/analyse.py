#!/usr/bin/env python3
"""analyse.py DIR: the counts that planted anomalies give, from the fits run.sh made of
make.py's tables (bench/notes/threshold.md A.0). For a fit, q_p is the share of the table's own
rows that score above the p-quantile of the planted rows' scores; each count is bounded to
[0.1 %, 30 %] as the product's is. Beside them the learned count of the same fits
(summary.json's selected_ratio) and constants. Figures:

  |ln| grp   mean |ln(count / true share)| over the original tables, per group first
  |ln| tab   the same per table
  x1.5       original tables within a factor 1.5 of the truth
  resp       slope of ln(count) on ln(true share) over each table's five versions, clipped
             to [0, 1], mean over tables; resp.9 over the tables of ROCAUC >= 0.9

then the quantile chosen leave-one-group-out, per-group figures, a gate (q_p where it
lies in (lo, hi), else the learned count's prior 4.15 %) chosen nested by group, and a
gate on the planted rows' detectability (q_p where their AUC against the table's own rows
lies in [lo, hi), else the learned count) chosen nested by group."""
import collections, json, math, os, random, statistics as st, sys
import numpy as np
from sklearn.metrics import roc_auc_score

d = sys.argv[1]
QS = [0.0, 0.05, 0.1, 0.25, 0.5, 0.75]
PRIOR = 0.0415
rows = []
for m in map(json.loads, open(os.path.join(d, 'meta.jsonl'))):
    o = os.path.join(d, 'fits', os.path.basename(m['file'])[:-4])
    if not os.path.exists(o + '/scores.csv'):
        continue
    s = np.genfromtxt(o + '/scores.csv', delimiter=',', names=True)['score']
    n = m['n']
    own, planted = s[:n], s[n:]
    y = np.load(m['file'])['y'][:n]
    r = dict(m, roc=roc_auc_score(y, own), count=json.load(open(o + '/summary.json'))['selected_ratio'])
    # how detectable the planted rows are: their AUC against the table's own rows
    r['pauc'] = roc_auc_score(np.r_[np.zeros(n), np.ones(len(planted))], np.r_[own, planted])
    for q in QS:
        r['q%g' % q] = float((own > np.quantile(planted, q)).mean())
    rows.append(r)
clip = lambda c: min(max(c, 0.001), 0.3)
orig = {r['table']: r for r in rows if r['copy'] == 0}
versions = collections.defaultdict(list)
for r in rows:
    versions[r['table']].append(r)
groups = collections.defaultdict(list)
for t, r in orig.items():
    groups[r['group']].append(t)
G = list(groups)


def est(r, c):
    return {'c05': 0.05, 'c10': 0.10}.get(c) or clip(r[c])


def err(r, f):
    return abs(math.log(f(r) / r['true']))


def grp(f, gs=G):
    return st.mean(st.mean(err(orig[t], f) for t in groups[g]) for g in gs)


def slope(rs, f):
    x = [math.log(r['true']) for r in rs]
    v = [math.log(f(r)) for r in rs]
    mx, mv = st.mean(x), st.mean(v)
    return min(max(sum((a - mx) * (b - mv) for a, b in zip(x, v)) / sum((a - mx) ** 2 for a in x), 0), 1)


print('%d fits, %d tables, %d groups; %d tables of ROCAUC >= 0.9' % (len(rows), len(orig), len(G), sum(r['roc'] >= 0.9 for r in orig.values())))
print('| count | \\|ln\\| grp | \\|ln\\| tab | x1.5 | resp | resp.9 |\n|---|---|---|---|---|---|')
for c in ['count', 'c05', 'c10'] + ['q%g' % q for q in QS]:
    f = lambda r, c=c: est(r, c)
    print('| %s | %.3f | %.3f | %.0f %% | %.2f | %.2f |' % (
        c, grp(f), st.mean(err(r, f) for r in orig.values()),
        100 * st.mean(err(r, f) <= math.log(1.5) for r in orig.values()),
        st.mean(slope(v, f) for v in versions.values()),
        st.mean(slope(v, f) for t, v in versions.items() if orig[t]['roc'] >= 0.9)))
qc = ['q%g' % q for q in QS]
held, chosen = [], collections.Counter()
for g in G:
    pick = min(qc, key=lambda c: grp(lambda r: est(r, c), [h for h in G if h != g]))
    chosen[pick] += 1
    held.append(grp(lambda r: est(r, pick), [g]))
print('quantile chosen leave-one-group-out: %s; held out %.3f (learned count %.3f)' % (dict(chosen), st.mean(held), grp(lambda r: est(r, 'count'))))
print('\nper group (q0.1, learned count):')
for g in sorted(G, key=lambda g: grp(lambda r: est(r, 'q0.1'), [g]) - grp(lambda r: est(r, 'count'), [g])):
    ts = groups[g]
    print('  %-20s %2d tables, true %.3f: q0.1 %.3f (|ln| %.2f), count %.3f (|ln| %.2f), ROCAUC %.2f' % (
        g, len(ts), st.mean(orig[t]['true'] for t in ts), st.mean(est(orig[t], 'q0.1') for t in ts),
        grp(lambda r: est(r, 'q0.1'), [g]), st.mean(orig[t]['count'] for t in ts), grp(lambda r: est(r, 'count'), [g]),
        st.mean(orig[t]['roc'] for t in ts)))


def nested(title, gates, gate, reps):
    """Chooses a gate leave-one-group-out (the best on the other groups), and prints its
    held-out |ln| beside the learned count's, with a paired bootstrap over the groups."""
    held, chosen = [], collections.Counter()
    for g in G:
        pick = min(gates, key=lambda c: grp(gate(c), [h for h in G if h != g]))
        chosen[pick] += 1
        held.append(grp(gate(pick), [g]))
    learned = [grp(lambda r: est(r, 'count'), [g]) for g in G]
    diff = [a - b for a, b in zip(held, learned)]
    rng = random.Random(0)
    bs = sorted(st.mean(rng.choice(diff) for _ in diff) for _ in range(reps))
    tail = int(0.025 * reps)
    print('\n%s chosen nested by group: %s' % (title, chosen.most_common(3)))
    print('held out %.3f against the learned count %.3f: %+.3f [%+.3f, %+.3f]' % (
        st.mean(held), st.mean(learned), st.mean(diff), bs[tail], bs[reps - tail - 1]))


# the planted count where it lies in (lo, hi), the prior elsewhere
nested('gate', [(q, lo, hi) for q in ('q0.05', 'q0.1', 'q0.25', 'q0.5') for lo in (0.002, 0.005, 0.01, 0.02, 0.03)
                for hi in (0.1, 0.15, 0.2, 0.25, 0.3)],
       lambda c: (lambda r: clip(r[c[0]]) if c[1] < r[c[0]] < c[2] else PRIOR), 2000)
# the planted count where the planted rows' AUC lies in [lo, hi), the learned count elsewhere
nested('detectability gate', [(q, lo, hi) for q in ('q0.1', 'q0.25', 'q0.5') for lo in (0.9, 0.95, 0.97, 0.98, 0.99)
                              for hi in (0.995, 0.998, 0.999, 1.01)],
       lambda c: (lambda r: clip(r[c[0]]) if c[1] <= r['pauc'] < c[2] else clip(r['count'])), 4000)
