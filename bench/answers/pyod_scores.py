#!/usr/bin/env python3
"""Per-row scores of PyOD's eleven (the panel ../shared/peers/pyod_panel.py) for every table.

Usage: pyod_scores.py [--fit-rows 10000] [--timeout 120] DATA OUTDIR
DATA is the corpus folder with GROUPS.csv. For each table it writes OUTDIR/GROUP_NAME.csv
(rows in the table's order, one column per detector that finished) with the panel's own
load, standardise and detector code. Above --fit-rows rows a detector is fitted on a seeded
sample and scores every row, so each row keeps a score; a detector past --timeout seconds
(fit plus scoring) is left out and named on stderr.
"""
import argparse, csv, importlib, os, pickle, signal, sys, time
import numpy as np
sys.path.insert(0, "/work/shared/peers")
import pyod_panel as P


def run(name, Xfit, X, seed, timeout):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            mod, cls, kw = P.DETECTORS[name]
            det = getattr(importlib.import_module("pyod.models." + mod), cls)
            args = dict(kw)
            if "random_state" in det.__init__.__code__.co_varnames:
                args["random_state"] = seed
            m = det(**args).fit(Xfit)
            out = np.asarray(m.decision_function(X), dtype=np.float64)
        except BaseException as e:
            out = repr(e)[:200]
        os.write(w, pickle.dumps(out))
        os._exit(0)
    os.close(w)
    signal.signal(signal.SIGALRM, lambda *_: os.kill(pid, signal.SIGKILL))
    signal.alarm(timeout)
    buf = b""
    while chunk := os.read(r, 1 << 20):
        buf += chunk
    signal.alarm(0); os.close(r); os.waitpid(pid, 0)
    if not buf:
        return None, "timeout"
    out = pickle.loads(buf)
    return (None, out) if isinstance(out, str) else (out, "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fit-rows", type=int, default=10000)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("data"); ap.add_argument("out")
    a = ap.parse_args()
    with open(os.path.join(a.data, "GROUPS.csv")) as f:
        tables = [r["table"] for r in csv.DictReader(f)]
    for t in tables:
        dst = os.path.join(a.out, t.replace("/", "_").rsplit(".", 1)[0] + ".csv")
        if os.path.exists(dst):
            continue
        X, y = P.prepare(*P.load(os.path.join(a.data, t)), 1 << 62, a.seed)
        Xfit = X
        if len(y) > a.fit_rows:
            idx = np.sort(np.random.default_rng(a.seed).choice(len(y), a.fit_rows, replace=False))
            Xfit = X[idx]
        cols = {}
        for name in P.DETECTORS:
            t0 = time.time()
            s, err = run(name, Xfit, X, a.seed, a.timeout)
            if s is None or not np.all(np.isfinite(s)):
                print(f"{t} {name}: left out ({err or 'non-finite scores'})", file=sys.stderr, flush=True)
                continue
            cols[name] = s
            print(f"{t} {name}: {time.time()-t0:.1f}s", file=sys.stderr, flush=True)
        with open(dst + ".tmp", "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(["y"] + list(cols))
            for i in range(len(y)):
                wr.writerow([int(y[i])] + [repr(float(cols[c][i])) for c in cols])
        os.replace(dst + ".tmp", dst)


if __name__ == "__main__":
    main()
