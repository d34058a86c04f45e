#!/usr/bin/env python3
"""Would a per-feature tail detector beside the networks help? A measurement outside the
product (bench/notes/cost.md, "Per-feature tail detectors beside the networks"): the default's
per-row scores (`go run ./bench/cost -seed S -scores DIR`, seeds 0 and 1) are blended with
PyOD's ECOD, COPOD or HBOS (vendored in ../shared/peers, on the same rows, standardised as
pyod_panel.py does) as (1 - w)·default + w·detector, by ranks or by robust z-scores
(median, 1.4826·MAD), and the weight is chosen leave-one-group-out on the mean over groups
of (ROCAUC + PRAUC)/2.

  classicblend.py score SCORES_DIR OUT_DIR      each fit's ECOD, COPOD and HBOS scores
  classicblend.py logo SCORES_DIR OUT_DIR DETECTOR rank|z
"""
import collections, csv, importlib, os, sys
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from pca import D, load  # noqa: E402

DETECTORS = {"ECOD": ("ecod", "ECOD"), "COPOD": ("copod", "COPOD"), "HBOS": ("hbos", "HBOS")}
W = [0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5]
SEEDS = (0, 1)


def tables():
    for r in csv.DictReader(open(os.path.join(D, "GROUPS.csv"))):
        yield r["table"], r["table"].rsplit(".", 1)[0].replace("/", "_"), r["group"]


def score(scores_dir, out_dir):
    sys.path.insert(0, os.path.join(D, "..", "peers", "vendor"))
    os.makedirs(out_dir, exist_ok=True)
    for table, name, _ in tables():
        X = None
        for seed in SEEDS:
            f = os.path.join(scores_dir, "%s-default-%d.csv" % (name, seed))
            o = os.path.join(out_dir, "%s-%d.npz" % (name, seed))
            if not os.path.exists(f) or os.path.exists(o):
                continue
            if X is None:
                X, _ = load(os.path.join(D, table))
            rows = np.loadtxt(f, delimiter=",", skiprows=1, usecols=0).astype(int)
            Xs = X[rows]
            Xs = Xs[:, Xs.std(axis=0) > 0]
            Xs = (Xs - Xs.mean(axis=0)) / Xs.std(axis=0)
            res = {}
            for k, (mod, cls) in DETECTORS.items():
                det = getattr(importlib.import_module("pyod.models." + mod), cls)()
                det.fit(Xs)
                res[k] = det.decision_scores_
            np.savez(o, **res)
            print(name, seed, flush=True)


def robust_z(s):
    med = np.median(s)
    mad = 1.4826 * np.median(np.abs(s - med))
    return (s - med) / (mad if mad > 0 else (np.std(s) or 1))


def logo(scores_dir, out_dir, det, mode):
    from scipy.stats import rankdata
    from sklearn.metrics import average_precision_score, roc_auc_score
    fits = []  # (group, [(criterion, rocauc, prauc) per weight])
    for _, name, group in tables():
        for seed in SEEDS:
            f = os.path.join(scores_dir, "%s-default-%d.csv" % (name, seed))
            c = os.path.join(out_dir, "%s-%d.npz" % (name, seed))
            if not (os.path.exists(f) and os.path.exists(c)):
                continue
            a = np.loadtxt(f, delimiter=",", skiprows=1)
            y, s, k = a[:, 1].astype(int), a[:, 2], np.load(c)[det]
            vals = []
            for w in W:
                b = (1 - w) * rankdata(s) + w * rankdata(k) if mode == "rank" else (1 - w) * robust_z(s) + w * robust_z(k)
                roc, pr = roc_auc_score(y, b), average_precision_score(y, b)
                vals.append(((roc + pr) / 2, roc, pr))
            fits.append((group, vals))
    groups = sorted({g for g, _ in fits})

    def over(sel, wi):
        per = collections.defaultdict(list)
        for g, v in fits:
            if g in sel:
                per[g].append(v[wi][0])
        return np.mean([np.mean(x) for x in per.values()])

    print("%s by %s, %d fits, %d groups" % (det, mode, len(fits), len(groups)))
    for wi, w in enumerate(W):
        print("w %.2f: over groups %.4f, mean ROCAUC %.4f, mean PRAUC %.4f" % (
            w, over(groups, wi), np.mean([v[wi][1] for _, v in fits]), np.mean([v[wi][2] for _, v in fits])))
    held, chosen = [], collections.Counter()
    for g in groups:
        rest = [x for x in groups if x != g]
        best = max(range(len(W)), key=lambda wi: over(rest, wi))
        chosen[W[best]] += 1
        held.append(over([g], best) - over([g], 0))
    held = np.array(held)
    rng = np.random.default_rng(0)
    boot = [rng.choice(held, len(held)).mean() for _ in range(4000)]
    print("held out: weights chosen %s; gain over the groups %+.4f [%+.4f, %+.4f]" % (
        dict(sorted(chosen.items())), held.mean(), np.percentile(boot, 2.5), np.percentile(boot, 97.5)))


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "score":
        score(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 6 and sys.argv[1] == "logo":
        logo(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    else:
        sys.exit(__doc__)
