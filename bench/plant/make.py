#!/usr/bin/env python3
"""Planted anomalies as a yardstick for the count (issue 40; bench/notes/threshold.md A.0, "Planted
anomalies as a yardstick"). For every table of DATA/GROUPS.csv (on a seeded 10,000-row
sample above that), the original and four copies whose anomalies (or, above their share,
normal rows) are subsampled to shares drawn log-uniformly from 0.2 % to 40 % (one per
quarter of the log range, as `udocc-bench --study --real` draws its copies), each with
max(10, 2 %) planted rows appended (label 0):

  shift    a random row of the table with 1-3 random non-constant columns set to the
           column's median +- 6 robust standard deviations (MAD x 1.4826, else the
           standard deviation);
  shuffle  every column drawn from its own marginal, independently (the rows' dependence
           broken).

Writes OUT/NAME~K.npz (X, y; the planted rows last) and OUT/meta.jsonl (rows n, planted
m, the true share, group). Then run.sh fits each, analyse.py reads the fits.

Usage: bench/plant/make.py OUT [shift|shuffle] [DATA (../shared/data)]
"""
import csv, json, math, os, sys
import numpy as np

out = sys.argv[1]
mode = sys.argv[2] if len(sys.argv) > 2 else 'shift'
data = sys.argv[3] if len(sys.argv) > 3 else '../shared/data'
sys.path.insert(0, os.path.join(data, '..', 'peers'))
from pyod_panel import load  # the panel's reader of .mat and .npz tables: (X, y)

MAXN = 10000
os.makedirs(out, exist_ok=True)
meta = open(os.path.join(out, 'meta.jsonl'), 'w')
for r in csv.DictReader(open(os.path.join(data, 'GROUPS.csv'))):
    name = r['table'].rsplit('.', 1)[0].replace('/', '_')
    X, y = load(os.path.join(data, r['table']))
    rng = np.random.default_rng(0)
    if len(y) > MAXN:
        idx = np.sort(rng.choice(len(y), MAXN, replace=False))
        X, y = X[idx], y[idx]
    a, nrm = np.where(y == 1)[0], np.where(y == 0)[0]
    if len(a) == 0:
        continue
    med = np.median(X, axis=0)
    mad = np.median(np.abs(X - med), axis=0) * 1.4826
    sd = X.std(axis=0)
    scale = np.where(mad > 0, mad, sd)
    cols = np.where(sd > 0)[0]
    lo, hi = math.log(0.002), math.log(0.4)
    for k in range(5):
        if k == 0:
            Xc, yc = X, y
        else:
            share = math.exp(lo + (hi - lo) * (k - 1 + rng.random()) / 4)
            na = max(1, round(share * len(nrm) / (1 - share)))
            if na <= len(a):
                keep = np.concatenate([nrm, rng.choice(a, na, replace=False)])
            else:
                nn = max(10, round(len(a) * (1 - share) / share))
                keep = np.concatenate([rng.choice(nrm, min(nn, len(nrm)), replace=False), a])
            keep = np.sort(keep)
            Xc, yc = X[keep], y[keep]
        n = len(yc)
        m = max(10, round(0.02 * n))
        if mode == 'shuffle':
            planted = np.stack([Xc[rng.integers(0, n, m), j] for j in range(Xc.shape[1])], axis=1)
        else:
            planted = Xc[rng.integers(0, n, m)].copy()
            for i in range(m):
                c = rng.choice(cols, min(len(cols), rng.integers(1, 4)), replace=False)
                planted[i, c] = med[c] + rng.choice([-1, 1], len(c)) * 6 * scale[c]
        f = os.path.join(out, '%s~%d.npz' % (name, k))
        np.savez(f, X=np.vstack([Xc, planted]), y=np.concatenate([yc, np.zeros(m, int)]))
        meta.write(json.dumps(dict(file=f, table=r['table'], group=r['group'], copy=k, n=n, planted=m,
                                   true=float(yc.mean()), d=X.shape[1])) + '\n')
        meta.flush()
