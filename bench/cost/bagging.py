#!/usr/bin/env python3
"""Do ensembles trained on different row samples add more than ensembles of other seeds on
the same sample? A measurement outside the product (docs/cost.md, "Members trained on
different samples").

  bagging.py DIR [-v]   DIR holds p0.jsonl, p1.jsonl and scores/, written by
                        go run ./bench/cost -seed S -out DIR/pS.jsonl -scores DIR/scores \\
                          -tables T -variants 'default;b1=member-seed:5;b2=member-seed:10;\\
                          c1=member-seed:5,sample-seed:5;c2=member-seed:10,sample-seed:10'
                        for S in 0 1 and T the tables of more than 2,048 rows.

Each fit's scores are robust-z-scored (median, interquartile range) and averaged row by
row; the mean of (ROCAUC+PRAUC)/2 is taken per group, then over groups, with a paired
bootstrap over groups of the differences. -v prints each table's ROCAUC.
"""
import json, os, sys
import numpy as np
from sklearn.metrics import roc_auc_score, average_precision_score

COMBOS = {"single": ["default"], "same2": ["default", "b1"], "diff2": ["default", "c1"],
          "same3": ["default", "b1", "b2"], "diff3": ["default", "c1", "c2"]}


def load(d, t, v, s):
    f = os.path.join(d, "scores", f"{t.replace('/', '_')}-{v}-{s}.csv")
    if not os.path.exists(f):
        return None
    a = np.loadtxt(f, delimiter=",", skiprows=1)
    return a[:, 1], a[:, 2]


def z(x):
    m = np.median(x)
    q = np.subtract(*np.percentile(x, [75, 25]))
    return (x - m) / (q if q > 0 else 1)


def main(d, verbose):
    recs = [json.loads(l) for s in (0, 1) for l in open(os.path.join(d, f"p{s}.jsonl"))]
    grp = {r["table"]: r["group"] for r in recs}
    res = {c: {} for c in COMBOS}
    for t in sorted(grp):
        for s in (0, 1):
            fits = {v: load(d, t, v, s) for v in ["default", "b1", "b2", "c1", "c2"]}
            if any(f is None for f in fits.values()):
                continue
            y = fits["default"][0]
            for c, vs in COMBOS.items():
                sc = np.mean([z(fits[v][1]) for v in vs], axis=0)
                res[c].setdefault(t, []).append((roc_auc_score(y, sc), average_precision_score(y, sc)))
    tabs = sorted(res["single"])

    def pergroup(c):
        g = {}
        for t in tabs:
            a = np.mean(res[c][t], axis=0)
            g.setdefault(grp[t], []).append((a[0] + a[1]) / 2)
        return {k: np.mean(v) for k, v in g.items()}

    base = {c: pergroup(c) for c in COMBOS}
    groups = sorted(base["single"])
    print(len(tabs), "tables", len(groups), "groups")
    for c in COMBOS:
        roc = np.mean([np.mean(res[c][t], axis=0)[0] for t in tabs])
        pr = np.mean([np.mean(res[c][t], axis=0)[1] for t in tabs])
        print(f"{c:8s} over groups {np.mean([base[c][g] for g in groups]):.4f}  ROCAUC {roc:.4f}  PRAUC {pr:.4f}")
    rng = np.random.default_rng(0)
    for a, b in [("diff2", "same2"), ("diff3", "same3"), ("same3", "single"), ("diff3", "single")]:
        dd = np.array([base[a][g] - base[b][g] for g in groups])
        bs = [dd[rng.integers(0, len(dd), len(dd))].mean() for _ in range(5000)]
        print(f"{a} - {b}: {dd.mean():+.4f} [{np.percentile(bs, 2.5):+.4f}, {np.percentile(bs, 97.5):+.4f}], "
              f"better on {int((dd > 0).sum())} of {len(dd)} groups")
    if verbose:
        for t in tabs:
            print(f"{t:40s}", " ".join(f"{c}:{np.mean(res[c][t], axis=0)[0]:.3f}" for c in COMBOS))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1], "-v" in sys.argv[2:])
