# analyse.py DIR: the counts of bench/notes/threshold.md A.0 (cross-fitting) from bench/crossfit's files:
# per table, conformal p-values of the rows outside a half against the half that trained
# the fit, Storey's and BH's counts, the excess over the half's upper percentiles, the
# agreement of the two fits' top rows; each count's response to resampling (slope of
# ln(count) on ln(true share) over a table's copies, clipped to [0, 1]) and its error.
# Run with /usr/bin/python3 (numpy, scipy).
import json, sys, os, numpy as np, collections
D = sys.argv[1]
recs = [json.loads(l) for l in open(D + '/index.jsonl')]
def load(name):
    a = np.genfromtxt(D + '/' + name.replace('/', '_') + '.csv', delimiter=',', skip_header=1)
    return a[:, 0].astype(int), a[:, 1].astype(int), a[:, 2], a[:, 3]
CL = (0.001, 0.3)
def ests(y, half, s1, s2):
    out = collections.defaultdict(list)
    for k, s in ((1, s1), (2, s2)):
        ins = s[half == k]; oth = s[half != k]; yo = y[half != k]
        srt = np.sort(ins); m = len(ins)
        # conformal p-value of each out-of-sample row against the in-sample scores
        p = (1 + m - np.searchsorted(srt, oth, side='left')) / (m + 1)
        for lam in (0.5, 0.8, 0.9):
            pi0 = np.mean(p > lam) / (1 - lam)
            out['storey%.1f' % lam].append(1 - pi0)
        for q in (0.8, 0.9, 0.95, 0.99):
            t = np.quantile(ins, q)
            ex = np.mean(oth > t) - np.mean(ins > t)
            out['exc%.2f' % q].append(ex / q)
        # BH at FDR alpha
        po = np.sort(p); No = len(po)
        for a in (0.05, 0.2):
            ok = np.nonzero(po <= a * np.arange(1, No + 1) / No)[0]
            out['bh%.2f' % a].append((ok[-1] + 1) / No if len(ok) else 0)
        # oracle diagnostics: generalisation gap on the normal rows
        tn = np.quantile(ins, 0.9)
        out['diag_normal_above_q90'].append(np.mean(oth[yo == 0] > tn))
        out['diag_anom_above_q90'].append(np.mean(oth[yo == 1] > tn) if (yo == 1).any() else np.nan)
        insy = y[half == k]
        out['diag_in_anom_above_q90'].append(np.mean(ins[insy == 1] > tn) if (insy == 1).any() else np.nan)
    n = len(y); o1 = np.argsort(-s1); o2 = np.argsort(-s2)
    rank2 = np.empty(n, int); rank2[o2] = np.arange(n)
    grid = np.unique(np.clip((np.exp(np.linspace(np.log(0.001), np.log(0.4), 40)) * n).astype(int), 1, n - 1))
    ov = []
    for k in grid:
        ov.append(np.mean(rank2[o1[:k]] < k))
    ov = np.array(ov)
    for tau in (0.4, 0.5, 0.6, 0.7):
        ok = np.nonzero(ov >= tau)[0]
        out['stab%.1f' % tau].append(grid[ok[-1]] / n if len(ok) else 0.001)
    # excess of overlap over chance, the k where it peaks
    ex = ov - grid / n
    out['stabpeak'].append(grid[np.argmax(ex * np.sqrt(grid))] / n)
    return {k: float(np.mean(v)) for k, v in out.items()}
rows = []
for r in recs:
    y, half, s1, s2 = load(r['table'])
    e = ests(y, half, s1, s2)
    e.update(table=r['table'], source=r['source'], group=r['group'], true=r['true_ratio'], n=r['n'], roc=(r['rocauc1'] + r['rocauc2']) / 2)
    rows.append(e)
json.dump(rows, open(D + '/ests.json', 'w'))
keys = [k for k in rows[0] if k.startswith(('storey', 'exc', 'bh', 'stab'))]
bysrc = collections.defaultdict(list)
for e in rows: bysrc[e['source']].append(e)
def slope(es, k):
    x = np.log([e['true'] for e in es]); v = np.log(np.clip([e[k] for e in es], *CL))
    if np.ptp(x) < 0.5: return np.nan
    return np.clip(np.polyfit(x, v, 1)[0], 0, 1)
orig = [e for e in rows if e['table'] == e['source']]
good = {e['source'] for e in orig if e['roc'] >= 0.9}
print('tables', len(orig), 'good', len(good), 'fits', len(rows))
print('%-14s %7s %7s | %7s %7s %6s | %s' % ('est', 'slope', 'slopeG', '|ln|', 'x1.5', '>x10', 'grp|ln|'))
for k in keys + ['const5']:
    sl = []; slg = []
    for s, es in bysrc.items():
        if k == 'const5': v = 0
        else: v = slope(es, k)
        if np.isnan(v): continue
        sl.append(v)
        if s in good: slg.append(v)
    est = lambda e: 0.05 if k == 'const5' else np.clip(e[k], *CL)
    err = np.array([abs(np.log(est(e) / e['true'])) for e in orig])
    g = collections.defaultdict(list)
    for e, a in zip(orig, err): g[e['group']].append(a)
    print('%-14s %7.3f %7.3f | %7.3f %7.2f %6.2f | %.3f' % (k, np.mean(sl), np.mean(slg) if slg else np.nan, err.mean(), np.mean(err < np.log(1.5)), np.mean(err > np.log(10)), np.mean([np.mean(v) for v in g.values()])))
for k in ('diag_normal_above_q90', 'diag_anom_above_q90', 'diag_in_anom_above_q90'):
    print(k, np.nanmean([e[k] for e in rows]))
