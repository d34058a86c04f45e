#!/usr/bin/env python3
"""Would a neighbours' view of the input help the default where KNN, LOF or CBLOF lead it?
A measurement outside the product (bench/notes/cost.md, "Input transforms ... Nor does a
neighbours' view"): the default's scores (`go run ./bench/cost -scores DIR`, seed 0) are
blended by rank with each row's distance to its 5th nearest neighbour among a seeded
2,048-row reference sample of the standardised rows (a reference row's own distance
skipped), at weights 0 to 1, and chosen by weight leave-one-group-out.

  knnblend.py SCORES_DIR OUT.json    per-table ROCAUC / PRAUC at each weight
  knnblend.py logo OUT.json          means, and the choice of weight held out by group
"""
import collections, csv, json, os, sys
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from pca import D, load  # noqa: E402

W = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0]
K = 5


def measure(scores_dir, out):
    from scipy.stats import rankdata
    from sklearn.metrics import average_precision_score, roc_auc_score
    from sklearn.neighbors import NearestNeighbors
    res = {}
    for r in csv.DictReader(open(os.path.join(D, "GROUPS.csv"))):
        t = r["table"].rsplit(".", 1)[0]
        f = os.path.join(scores_dir, "%s-default-0.csv" % t.replace("/", "_"))
        if not os.path.exists(f):
            continue
        a = np.loadtxt(f, delimiter=",", skiprows=1)
        rows, y, s = a[:, 0].astype(int), a[:, 1].astype(int), a[:, 2]
        X = load(os.path.join(D, r["table"]))[0][rows]
        X = X[:, X.std(0) > 0]
        X = (X - X.mean(0)) / X.std(0)
        idx = np.random.default_rng(0).choice(len(X), min(2048, len(X)), replace=False)
        dist, _ = NearestNeighbors(n_neighbors=K + 1).fit(X[idx]).kneighbors(X)
        inref = np.zeros(len(X), bool)
        inref[idx] = True
        knn = np.where(inref, dist[:, K], dist[:, K - 1])
        ru, rk = rankdata(s) / len(s), rankdata(knn) / len(knn)
        res[t] = {str(w): (roc_auc_score(y, (1 - w) * ru + w * rk), average_precision_score(y, (1 - w) * ru + w * rk)) for w in W}
        print(t, "udocc %.3f knn %.3f" % (res[t]["0"][0], res[t]["1.0"][0]), flush=True)
    json.dump(res, open(out, "w"))


def logo(path):
    groups = {r["table"].rsplit(".", 1)[0]: r["group"] for r in csv.DictReader(open(os.path.join(D, "GROUPS.csv")))}
    res = json.load(open(path))
    G = collections.defaultdict(list)
    for t in res:
        G[groups[t]].append(t)
    crit = lambda w, gs: np.mean([np.mean([sum(res[t][w]) / 2 for t in G[g]]) for g in gs])
    for w in map(str, W):
        print(w, "mean ROCAUC %.4f PRAUC %.4f over groups (ROCAUC+PRAUC)/2 %.4f" % (
            np.mean([res[t][w][0] for t in res]), np.mean([res[t][w][1] for t in res]), crit(w, list(G))))
    held, picks = [], collections.Counter()
    for g in G:
        w = max(map(str, W), key=lambda w: crit(w, [h for h in G if h != g]))
        picks[w] += 1
        held.append(crit(w, [g]) - crit("0", [g]))
    print("leave-one-group-out picks", dict(picks), "held-out gain %+.4f" % np.mean(held))


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[:1] == ["logo"]:
        logo(a[1])
    elif len(a) == 2:
        measure(a[0], a[1])
    else:
        sys.exit(__doc__)
