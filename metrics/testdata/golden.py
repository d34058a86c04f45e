#!/usr/bin/python3
"""Print the scikit-learn golden cases of metrics/golden_test.go.

Run: /usr/bin/python3 metrics/testdata/golden.py > /tmp/golden.go.txt
(Debian bookworm: python3-sklearn 1.2.1, python3-numpy 1.24.2), then paste
the printed entries into goldenCases. Not run by the tests.

Scores are drawn from few distinct values so most cases have ties; pred is
the labelling score >= threshold, with the threshold sometimes above every
score so that nothing is predicted positive (precision's zero division).
"""
import warnings

import numpy as np
import sklearn
from sklearn.metrics import (average_precision_score, f1_score,
                             precision_score, recall_score, roc_auc_score)

warnings.simplefilter("ignore")  # zero-division warnings: sklearn returns 0


def golist(xs, fmt):
    return "{" + ", ".join(fmt(x) for x in xs) + "}"


def case(name, y, s, thr):
    y = np.asarray(y, dtype=int)
    s = np.asarray(s, dtype=float)
    pred = (s >= thr).astype(int)
    vals = [roc_auc_score(y, s), average_precision_score(y, s),
            precision_score(y, pred), recall_score(y, pred), f1_score(y, pred)]
    print("\t{name: \"%s\"," % name)
    print("\t\tlabels: []int%s," % golist(y, str))
    print("\t\tscores: []float64%s," % golist(s, repr))
    print("\t\tpred:   []int%s," % golist(pred, str))
    print("\t\tauc: %r, ap: %r, precision: %r, recall: %r, f1: %r}," %
          tuple(float(v) for v in vals))


def main():
    print("// scikit-learn %s, numpy %s" % (sklearn.__version__, np.__version__))
    rng = np.random.default_rng(20240607)
    for k in range(22):
        n = int(rng.integers(6, 31))
        while True:
            y = (rng.random(n) < rng.uniform(0.15, 0.6)).astype(int)
            if 0 < y.sum() < n:
                break
        levels = int(rng.integers(2, 7))
        s = rng.integers(0, levels, n) + 0.8 * y * rng.random()  # ties; some signal
        s = np.round(s / levels, 2)
        thr = float(np.quantile(s, rng.uniform(0.3, 0.95)))
        if k % 7 == 3:
            thr = float(s.max()) + 1  # nothing predicted positive
        case("random%02d" % k, y, s, thr)
    case("all tied", [0, 1, 0, 1, 1], [0.5] * 5, 0.5)
    case("perfect", [0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9], 0.5)
    case("inverted", [1, 1, 0, 0], [0.1, 0.2, 0.8, 0.9], 0.5)
    case("negative scores", [0, 1, 1, 0, 1, 0], [-3.0, -1.0, -1.0, -2.0, -0.5, -1.0], -1.0)


main()
