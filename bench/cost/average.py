#!/usr/bin/env python3
"""Do several fits of a table, averaged row by row, rank its anomalies better than one?
A measurement outside the product (bench/notes/cost.md: "Members trained on different samples",
"Input transforms for skewed and discrete columns").

  average.py [-v] [-max] [-seeds 0,1] -groups LINES.jsonl[,...] NAME=FIT[+FIT...] ... -- A-B ...

A FIT is DIR:VARIANT, the scores `go run ./bench/cost -scores DIR` wrote for that variant
(DIR/TABLE-VARIANT-SEED.csv); a NAME of more than one fit averages them row by row, each
robust-z-scored first (median, interquartile range), or with -max takes their largest;
a NAME of one fit is its scores as they are. -groups names bench/cost lines that give each table's group. For every table
whose every fit is there at every seed, the mean of (ROCAUC+PRAUC)/2 is taken per group,
then over groups; each pair A-B after -- gets the mean difference over groups and a
paired bootstrap 95 % interval. -v prints each table's ROCAUC.

Example (bench/notes/cost.md, per-member samples):
  average.py -groups D/p0.jsonl single=D/scores:default \\
    same2=D/scores:default+D/scores:b1 diff2=D/scores:default+D/scores:c1 -- diff2-same2
"""
import json, os, sys
import numpy as np
from sklearn.metrics import roc_auc_score, average_precision_score


def load(d, t, v, s):
    f = os.path.join(d, f"{t.replace('/', '_')}-{v}-{s}.csv")
    if not os.path.exists(f):
        return None
    a = np.loadtxt(f, delimiter=",", skiprows=1, ndmin=2)
    o = np.argsort(a[:, 0], kind="stable")  # by the table's row
    return a[o, 0], a[o, 1], a[o, 2]


def z(x):
    m = np.median(x)
    q = np.subtract(*np.percentile(x, [75, 25]))
    return (x - m) / (q if q > 0 else 1)


def main(argv):
    verbose, combine, seeds, groupfiles, combos, pairs = False, np.mean, (0, 1), [], {}, []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "-v":
            verbose = True
        elif a == "-max":
            combine = np.max
        elif a == "-seeds":
            i += 1
            seeds = tuple(int(s) for s in argv[i].split(","))
        elif a == "-groups":
            i += 1
            groupfiles += argv[i].split(",")
        elif a == "--":
            pairs = [tuple(p.split("-", 1)) for p in argv[i + 1:]]
            break
        else:
            name, fits = a.split("=", 1)
            combos[name] = [tuple(f.rsplit(":", 1)) for f in fits.split("+")]
        i += 1
    if not combos or not groupfiles:
        sys.exit(__doc__)
    grp = {}
    for f in groupfiles:
        for line in open(f):
            r = json.loads(line)
            grp[r["table"]] = r["group"]
    res = {c: {} for c in combos}
    for t in sorted(grp):
        for s in seeds:
            fits = {p: load(p[0], t, p[1], s) for parts in combos.values() for p in parts}
            if any(f is None for f in fits.values()):
                continue
            ref = next(iter(fits.values()))
            for p, f in fits.items():
                if len(f[0]) != len(ref[0]) or (f[0] != ref[0]).any() or (f[1] != ref[1]).any():
                    sys.exit(f"{t}, seed {s}: {p} scores other rows or labels than {next(iter(fits))}")
            y = ref[1]
            for c, parts in combos.items():
                sc = combine([z(fits[p][2]) for p in parts], axis=0) if len(parts) > 1 else fits[parts[0]][2]
                res[c].setdefault(t, []).append((roc_auc_score(y, sc), average_precision_score(y, sc)))
    first = next(iter(combos))
    tabs = sorted(t for t in res[first] if len(res[first][t]) == len(seeds))

    def pergroup(c):
        g = {}
        for t in tabs:
            a = np.mean(res[c][t], axis=0)
            g.setdefault(grp[t], []).append((a[0] + a[1]) / 2)
        return {k: np.mean(v) for k, v in g.items()}

    base = {c: pergroup(c) for c in combos}
    groups = sorted(base[first])
    print(len(tabs), "tables", len(groups), "groups")
    for c in combos:
        roc = np.mean([np.mean(res[c][t], axis=0)[0] for t in tabs])
        pr = np.mean([np.mean(res[c][t], axis=0)[1] for t in tabs])
        print(f"{c:10s} over groups {np.mean([base[c][g] for g in groups]):.4f}  ROCAUC {roc:.4f}  PRAUC {pr:.4f}")
    rng = np.random.default_rng(0)
    for a, b in pairs:
        dd = np.array([base[a][g] - base[b][g] for g in groups])
        bs = [dd[rng.integers(0, len(dd), len(dd))].mean() for _ in range(5000)]
        print(f"{a} - {b}: {dd.mean():+.4f} [{np.percentile(bs, 2.5):+.4f}, {np.percentile(bs, 97.5):+.4f}], "
              f"better on {int((dd > 0).sum())} of {len(dd)} groups")
    if verbose:
        for t in tabs:
            print(f"{t:45s}", " ".join(f"{c}:{np.mean(res[c][t], axis=0)[0]:.3f}" for c in combos))


if __name__ == "__main__":
    main(sys.argv[1:])
