#!/usr/bin/env python3
"""Would the default do better, and cost less, on wide tables if its networks saw the
tables' leading principal components instead of their columns? A measurement outside
the product (bench/notes/cost.md, "Wide tables on principal components").

  pca.py make K OUT [DMIN]   copy every table of ../shared/data of more than DMIN (64)
                             columns and at most 50,000 rows to OUT/, its columns
                             replaced by the top K principal components of the
                             standardised columns (fit on a seeded 2,048-row sample, as
                             the default trains on one), with OUT/GROUPS.csv
  pca.py orig OUT            the same tables, unchanged (links), with OUT/GROUPS.csv
  pca.py analyse BASE.jsonl ORIG.jsonl NAME=V.jsonl... [PYOD.jsonl]
                             BASE: bench/cost's default lines on every table; ORIG and
                             each V: bench/cost's lines on the copies above (run in one
                             session); PYOD: pyod_panel.py's lines. Prints the per-table
                             list, per-group means, and the choice of (K, DMIN)
                             leave-one-group-out.

Run: for c in orig k32 k64; do go run ./bench/cost -corpus DIR/$c -out DIR/$c.jsonl; done
"""
import collections, csv, json, os, sys
import numpy as np

D = os.environ.get("UDOCC_DATA", os.path.join(os.path.dirname(__file__), "../../../shared/data"))


def load(p):
    if p.endswith(".mat"):
        from scipy.io import loadmat
        try:
            m = loadmat(p)
            return np.asarray(m["X"], float), np.asarray(m["y"]).ravel()
        except NotImplementedError:
            import h5py
            with h5py.File(p, "r") as f:
                return np.array(f["X"]).T.astype(float), np.array(f["y"]).ravel()
    with np.load(p, allow_pickle=False) as z:
        return np.asarray(z["X"], float), np.asarray(z["y"]).ravel()


def wide(dmin):
    for r in csv.DictReader(open(os.path.join(D, "GROUPS.csv"))):
        X, y = load(os.path.join(D, r["table"]))
        if X.shape[1] > dmin and len(X) <= 50000:
            yield r, X, y


def make(k, out, dmin):
    rows = []
    for r, X, y in wide(dmin):
        idx = np.random.default_rng(0).choice(len(X), min(2048, len(X)), replace=False)
        mu, sd = X[idx].mean(0), X[idx].std(0)
        sd[sd == 0] = 1
        _, _, vt = np.linalg.svd((X[idx] - mu) / sd, full_matrices=False)
        P = ((X - mu) / sd) @ vt[:min(k, len(vt))].T
        name = r["table"].rsplit(".", 1)[0] + ".npz"
        os.makedirs(os.path.dirname(os.path.join(out, name)), exist_ok=True)
        np.savez(os.path.join(out, name), X=P, y=y)
        rows.append((name, r["group"]))
        print(name, X.shape, "->", P.shape, flush=True)
    with open(os.path.join(out, "GROUPS.csv"), "w") as f:
        f.write("table,group\n" + "".join(f"{a},{b}\n" for a, b in rows))


def orig(out, dmin):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "GROUPS.csv"), "w") as f:
        f.write("table,group\n")
        for r, _, _ in wide(dmin):
            dst = os.path.join(out, r["table"])
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if not os.path.exists(dst):
                os.symlink(os.path.join(os.path.abspath(D), r["table"]), dst)
            f.write(f"{r['table']},{r['group']}\n")


def panel_best(pyod_p):
    """The best ROCAUC of PyOD's panel (pyod_panel.py's lines at pyod_p) per table name;
    empty without a file."""
    best = collections.defaultdict(float)
    if pyod_p:
        for l in open(pyod_p):
            r = json.loads(l)
            if "rocauc" in r:
                best[r["table"]] = max(best[r["table"]], r["rocauc"])
    return best


def lines(p):
    return {json.loads(l)["table"]: json.loads(l) for l in open(p)}


def analyse(base_p, orig_p, variants, pyod_p):
    base = lines(base_p)
    o = lines(orig_p)
    for t in o:  # the wide tables' baseline from the same session as the variants
        base[t] = o[t]
    V = {}
    for v in variants:
        name, p = v.split("=", 1)
        V[name] = {t.rsplit(".", 1)[0]: r for t, r in lines(p).items()}
    best = panel_best(pyod_p)
    groups = sorted({r["group"] for r in base.values()})
    val = lambda r: (r["rocauc"] + r["prauc"]) / 2

    def rec(c, t):  # the line of table t under candidate c = (variant, dmin)
        r = base[t]
        if c[0] != "none" and r["d"] > c[1] and t in V[c[0]]:
            return V[c[0]][t]
        return r

    def gval(c, g):
        return np.mean([val(rec(c, t)) for t, r in base.items() if r["group"] == g])

    names = sorted(V)
    print("| table | rows × columns | ROCAUC, columns | " + " | ".join(f"ROCAUC, {n}" for n in names) +
          " | PRAUC, columns | " + " | ".join(f"PRAUC, {n}" for n in names) + " | fit s, columns | " +
          " | ".join(f"fit s, {n}" for n in names) + " | best of PyOD's eleven |")
    print("|---" * (6 + 3 * len(names)) + "|")
    for t in sorted(o):
        r = o[t]
        k = t.rsplit(".", 1)[0]
        print(f"| {k} | {r['n']} × {r['d']} | {r['rocauc']:.3f} | " + " | ".join(f"{V[n][k]['rocauc']:.3f}" for n in names) +
              f" | {r['prauc']:.3f} | " + " | ".join(f"{V[n][k]['prauc']:.3f}" for n in names) +
              f" | {r['seconds']:.2f} | " + " | ".join(f"{V[n][k]['seconds']:.2f}" for n in names) +
              f" | {best.get(k.split('/')[-1], float('nan')):.3f} |")
    dmins = [64, 128, 256, 300, 512]
    cands = [("none", 10**9)] + [(n, d) for d in dmins for n in names]
    secs = lambda c: sum(rec(c, t)["seconds"] for t in base)
    print("\n| candidate | mean over groups of (ROCAUC+PRAUC)/2 | − columns' | fit seconds, all tables | tables > 0.10 ROCAUC behind the best of PyOD's |")
    print("|---|---|---|---|---|")
    for c in sorted(cands, key=secs):
        m = np.mean([gval(c, g) for g in groups])
        d = np.mean([gval(c, g) - gval(("none", 0), g) for g in groups])
        behind = sum(1 for t in base if best.get(t.rsplit(".", 1)[0].split("/")[-1], 0) - rec(c, t)["rocauc"] > 0.1)
        label = "columns" if c[0] == "none" else f"{c[0]} where d > {c[1]}"
        print(f"| {label} | {m:.4f} | {d:+.4f} | {secs(c):.1f} | {behind} |")
    for rule in ("best", "cheapest within 0.002"):
        gains, picks = [], collections.Counter()
        for g in groups:
            others = [h for h in groups if h != g]
            score = lambda c: np.mean([gval(c, h) for h in others])
            if rule == "best":
                pick = max(cands, key=lambda c: (round(score(c), 12), -secs(c)))
            else:
                ref = score(("none", 0))
                pick = next(c for c in sorted(cands, key=secs) if score(c) >= ref - 0.002)
            picks[pick] += 1
            gains.append(gval(pick, g) - gval(("none", 0), g))
        print(f"\nleave-one-group-out, the {rule} on the other groups: picks {dict(picks)}; "
              f"held-out gain over columns {np.mean(gains):+.4f} (mean over {len(groups)} groups)")


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[:1] == ["make"]:
        make(int(a[1]), a[2], int(a[3]) if len(a) > 3 else 64)
    elif a[:1] == ["orig"]:
        orig(a[1], int(a[2]) if len(a) > 2 else 64)
    elif a[:1] == ["analyse"]:
        vs = [x for x in a[3:] if "=" in x]
        py = [x for x in a[3:] if "=" not in x]
        analyse(a[1], a[2], vs, py[0] if py else None)
    else:
        sys.exit(__doc__)
