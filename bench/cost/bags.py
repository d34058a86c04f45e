#!/usr/bin/env python3
"""Feature bagging, measured outside the product (bench/notes/cost.md, "Input transforms for
skewed and discrete columns"): copy every table of at most 300 columns with a random
subset of its columns, of a size uniform in [d/2, d-1] (Lazarevic & Kumar 2005).

  bags.py OUT B   writes OUT/<table>.npz (X, y) and OUT/GROUPS.csv for bag B (1, 2, ...).

Then, for B in 1 2 3 and S in 0 1:
  go run ./bench/cost -corpus OUT_B -seed S -out OUT_B-S.jsonl -scores SCORES_B
and bench/cost/average.py compares the bags' average with defaults of other member seeds.
"""
import csv, os, sys
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from pca import D, load  # noqa: E402


def main(out, b):
    rows = []
    for r in csv.DictReader(open(os.path.join(D, "GROUPS.csv"))):
        X, y = load(os.path.join(D, r["table"]))
        d = X.shape[1]
        if d > 300:
            continue
        rng = np.random.default_rng(1000 * b + d)
        k = max(1, min(d // 2 + int(rng.integers(0, d - d // 2)), d - 1)) if d > 1 else 1
        cols = np.sort(rng.choice(d, k, replace=False))
        name = os.path.splitext(r["table"])[0] + ".npz"
        os.makedirs(os.path.join(out, os.path.dirname(name)), exist_ok=True)
        np.savez(os.path.join(out, name), X=X[:, cols].astype(np.float64), y=y)
        rows.append((name, r["group"]))
        print(name, d, k, flush=True)
    with open(os.path.join(out, "GROUPS.csv"), "w") as f:
        f.write("table,group\n")
        for name, g in rows:
            f.write(f"{name},{g}\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], int(sys.argv[2]))
