#!/usr/bin/env python3
"""The Mahalanobis blend of bench/notes/cost.md, measured outside the product: for every table whose
per-row scores `go run ./bench/cost -variants default -scores DIR` wrote, a Ledoit-Wolf Gaussian
fitted on 2,048 of the same rows (standardised, constant columns dropped), every row's Mahalanobis
distance, and the rank blend (1 - w) rank(udocc) + w rank(Mahalanobis) for each w; ROCAUC and
PRAUC per table and w, then the choice of w leave-one-group-out over GROUPS.csv's groups
(the best group-weighted mean of (ROCAUC + PRAUC)/2 over the other groups) and its held-out gain.

Usage: bench/cost/mahalanobis.py SCORES_DIR [DATA_DIR (../shared/data)]
Needs Debian's python3-numpy, python3-scipy, python3-sklearn.
"""
import collections, csv, os, statistics as st, sys
import numpy as np
from scipy.stats import rankdata
from sklearn.covariance import LedoitWolf
from sklearn.metrics import average_precision_score, roc_auc_score

scores, data = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else '../shared/data')
rows = list(csv.DictReader(open(os.path.join(data, 'GROUPS.csv'))))
groups = {r['table'].rsplit('.', 1)[0]: r['group'] for r in rows}
paths = {r['table'].rsplit('.', 1)[0]: r['table'] for r in rows}
W = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0]
sys.path.insert(0, os.path.join(data, '..', 'peers'))
from pyod_panel import load  # the panel's reader of .mat and .npz tables: (X, y)


res = {}
for t in sorted(paths):
    f = os.path.join(scores, '%s-default-0.csv' % t.replace('/', '_'))
    if not os.path.exists(f):
        continue
    a = np.loadtxt(f, delimiter=',', skiprows=1)
    idx, y, s = a[:, 0].astype(int), a[:, 1].astype(int), a[:, 2]
    X = load(os.path.join(data, paths[t]))[0][idx]
    X = X[:, X.std(0) > 0]
    X = (X - X.mean(0)) / X.std(0)
    fit = np.random.default_rng(0).choice(len(X), min(2048, len(X)), replace=False)
    m = LedoitWolf().fit(X[fit]).mahalanobis(X)
    ru, rm = rankdata(s) / len(s), rankdata(m) / len(m)
    res[t] = {w: (roc_auc_score(y, (1 - w) * ru + w * rm), average_precision_score(y, (1 - w) * ru + w * rm)) for w in W}

G = collections.defaultdict(list)
for t in res:
    G[groups[t]].append(t)


def crit(w, gs):
    return st.mean(st.mean((res[t][w][0] + res[t][w][1]) / 2 for t in G[g]) for g in gs)


print('w  mean ROCAUC  mean PRAUC  group-weighted (ROCAUC+PRAUC)/2  (%d tables, %d groups)' % (len(res), len(G)))
for w in W:
    print('%-4g %.4f %.4f %.4f' % (w, st.mean(res[t][w][0] for t in res), st.mean(res[t][w][1] for t in res), crit(w, list(G))))
held, chosen = [], collections.Counter()
for g in G:
    w = max(W, key=lambda w: crit(w, [h for h in G if h != g]))
    chosen[w] += 1
    held.append(crit(w, [g]) - crit(0, [g]))
print('leave-one-group-out: chosen %s; held-out change %.4f' % (dict(chosen), st.mean(held)))
