#!/usr/bin/env python3
"""Would the default do better on the tables where a classic detector leads it if each
column reached its networks through a monotone transform that tames skewed or discrete
columns? A measurement outside the product (bench/notes/cost.md, "Input transforms").

  transform.py make T OUT    copy every table of ../shared/data of at most 50,000 rows to
                             OUT/ with every column passed through transform T, fit on a
                             seeded 2,048-row sample (as the default trains on one), with
                             OUT/GROUPS.csv. T is one of:
                               rankgauss  each value to the normal quantile of its mid-rank
                                          among the sample's values of its column; beyond
                                          the sample's range, linearly on, at one standard
                                          deviation of the column per unit (so an extreme
                                          value stays extreme)
                               yj         Yeo-Johnson, λ by maximum likelihood per column
                                          (scikit-learn's PowerTransformer)
                               asinh      asinh of the robust z-score (median, 1.4826 MAD;
                                          the standard deviation where the MAD is 0)
  transform.py analyse ORIG.jsonl NAME=V.jsonl... [PYOD.jsonl]
                             ORIG: bench/cost's lines on the tables unchanged (pca.py orig
                             OUT 0 makes the links), V: on each transform's copies, every
                             one at the same seeds in one session. Prints per-group and
                             per-table figures and the choice leave-one-group-out.

Run: for t in rankgauss yj asinh; do transform.py make $t DIR/$t; done
     for s in 0 1; do for c in orig rankgauss yj asinh; do
       go run ./bench/cost -corpus DIR/$c -seed $s -out DIR/$c-$s.jsonl; done; done
"""
import collections, csv, json, os, sys
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from pca import D, load, panel_best  # noqa: E402


def tables():
    for r in csv.DictReader(open(os.path.join(D, "GROUPS.csv"))):
        X, y = load(os.path.join(D, r["table"]))
        if len(X) <= 50000:
            yield r, X, y


def rankgauss(S, X):
    from scipy.stats import norm
    out = np.empty_like(X)
    for j in range(X.shape[1]):
        v, cnt = np.unique(S[:, j], return_counts=True)
        m = cnt.sum()
        mid = (np.cumsum(cnt) - cnt / 2) / m  # mid-rank CDF of each distinct value
        z = norm.ppf(np.clip(mid, 0.5 / m, 1 - 0.5 / m))
        sd = S[:, j].std() or 1.0
        x = X[:, j]
        o = np.interp(x, v, z) if len(v) > 1 else np.zeros_like(x)
        o = np.where(x > v[-1], z[-1] + (x - v[-1]) / sd, o)
        o = np.where(x < v[0], z[0] + (x - v[0]) / sd, o)
        out[:, j] = o
    return out


def yj(S, X):
    from sklearn.preprocessing import PowerTransformer
    mu, sd = S.mean(0), S.std(0)
    sd[sd == 0] = 1
    p = PowerTransformer(method="yeo-johnson", standardize=True).fit((S - mu) / sd)
    with np.errstate(all="ignore"):
        out = p.transform((X - mu) / sd)
    return np.nan_to_num(np.clip(out, -1e6, 1e6))


def asinh(S, X):
    med = np.median(S, 0)
    mad = 1.4826 * np.median(np.abs(S - med), 0)
    sd = S.std(0)
    scale = np.where(mad > 0, mad, np.where(sd > 0, sd, 1.0))
    return np.arcsinh((X - med) / scale)


def make(t, out):
    f = {"rankgauss": rankgauss, "yj": yj, "asinh": asinh}[t]
    rows = []
    for r, X, y in tables():
        idx = np.random.default_rng(0).choice(len(X), min(2048, len(X)), replace=False)
        P = f(X[idx], X).astype(np.float32)
        name = r["table"].rsplit(".", 1)[0] + ".npz"
        os.makedirs(os.path.dirname(os.path.join(out, name)), exist_ok=True)
        np.savez(os.path.join(out, name), X=P, y=y)
        rows.append((name, r["group"]))
        print(name, X.shape, flush=True)
    with open(os.path.join(out, "GROUPS.csv"), "w") as fh:
        fh.write("table,group\n" + "".join(f"{a},{b}\n" for a, b in rows))


def lines(p):
    out = {}
    for l in open(p):
        r = json.loads(l)
        out[(r["table"].rsplit(".", 1)[0], r["seed"])] = r
    return out


def analyse(orig_p, variants, pyod_p):
    O = lines(orig_p)
    V = {n: lines(p) for n, p in (v.split("=", 1) for v in variants)}
    best = panel_best(pyod_p)
    keys = sorted(k for k in O if all(k in v for v in V.values()))
    groups = sorted({O[k]["group"] for k in keys})
    val = lambda r: (r["rocauc"] + r["prauc"]) / 2
    cands = ["columns"] + sorted(V)
    rec = lambda c, k: O[k] if c == "columns" else V[c][k]
    gval = lambda c, g, f=val: np.mean([f(rec(c, k)) for k in keys if O[k]["group"] == g])
    short = lambda k: k[0].split("/")[-1]
    print(f"{len(keys)} fits ({len({k[0] for k in keys})} tables, seeds {sorted({k[1] for k in keys})}), {len(groups)} groups\n")
    print("| input | mean over groups of (ROCAUC+PRAUC)/2 | − columns' | mean ROCAUC | mean PRAUC | paper sets ROCAUC / PRAUC | fit seconds | tables > 0.10 ROCAUC behind PyOD's best (seed 0) |")
    print("|---|---|---|---|---|---|---|---|")
    paper = [k for k in keys if k[0].startswith("odds/")]
    for c in cands:
        m = np.mean([gval(c, g) for g in groups])
        d = m - np.mean([gval("columns", g) for g in groups])
        behind = sum(1 for k in keys if k[1] == 0 and short(k) in best and best[short(k)] - rec(c, k)["rocauc"] > 0.1)
        print(f"| {c} | {m:.4f} | {d:+.4f} | {np.mean([rec(c, k)['rocauc'] for k in keys]):.4f} | "
              f"{np.mean([rec(c, k)['prauc'] for k in keys]):.4f} | "
              f"{np.mean([rec(c, k)['rocauc'] for k in paper]):.4f} / {np.mean([rec(c, k)['prauc'] for k in paper]):.4f} | "
              f"{sum(rec(c, k)['seconds'] for k in keys):.1f} | {behind} |")
    for s in sorted({k[1] for k in keys}):
        ks = [k for k in keys if k[1] == s]
        gs = sorted({O[k]["group"] for k in ks})
        f = lambda c: np.mean([np.mean([val(rec(c, k)) for k in ks if O[k]["group"] == g]) for g in gs])
        print(f"\nseed {s}: " + ", ".join(f"{c} {f(c) - f('columns'):+.4f}" for c in cands[1:]))
    gains, picks = [], collections.Counter()
    for g in groups:
        others = [h for h in groups if h != g]
        pick = max(cands, key=lambda c: np.mean([gval(c, h) for h in others]))
        picks[pick] += 1
        gains.append(gval(pick, g) - gval("columns", g))
    print(f"\nleave-one-group-out, the best on the other groups: picks {dict(picks)}; held-out gain over "
          f"columns {np.mean(gains):+.4f} (mean over {len(groups)} groups); groups it helps "
          f"{sum(x > 0.001 for x in gains)}, hurts {sum(x < -0.001 for x in gains)}")
    print("\n| group | tables | columns | " + " | ".join(cands[1:]) + " |")
    print("|---" * (2 + len(cands)) + "|")
    for g in groups:
        n = len({k[0] for k in keys if O[k]["group"] == g})
        print(f"| {g} | {n} | {gval('columns', g):.3f} | " + " | ".join(f"{gval(c, g) - gval('columns', g):+.3f}" for c in cands[1:]) + " |")
    print("\n| table | seed | ROCAUC columns | " + " | ".join(cands[1:]) + " | best of PyOD's eleven |")
    print("|---" * (3 + len(cands)) + "|")
    for k in keys:
        print(f"| {short(k)} | {k[1]} | {O[k]['rocauc']:.3f} | " + " | ".join(f"{V[c][k]['rocauc']:.3f}" for c in cands[1:]) +
              f" | {best.get(short(k), float('nan')):.3f} |")


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[:1] == ["make"]:
        make(a[1], a[2])
    elif a[:1] == ["analyse"]:
        vs = [x for x in a[2:] if "=" in x]
        py = [x for x in a[2:] if "=" not in x]
        analyse(a[1], vs, py[0] if py else None)
    else:
        sys.exit(__doc__)
