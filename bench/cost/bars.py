#!/usr/bin/env python3
"""Issue 44's cost bar from a sidebyside.py run: per band of rows, how many tables each build
met, the misses, the median change and totals, peak RSS, whether the scores moved, and (with
--table) the per-table list bench/notes/cost.md holds, for the build after.

The bar: the whole `udocc fit` process at most 1.0 s under 5,000 rows, at most 2x IForest's
fit + score from 5,000 to 19,000 rows, at most 1x from 19,000 rows.

Usage: bench/cost/bars.py SIDEBYSIDE.jsonl [--table]
"""
import json, re, statistics, sys


def target(n, forest):
    if n < 5000:
        return 1.0, "under 5,000", "≤ 1.0 s"
    if n < 19000:
        return 2 * forest, "5,000–19,000", "≤ 2× (%.2f s)" % (2 * forest)
    return forest, "19,000 and more", "≤ 1× (%.2f s)" % forest


def starting(parts):
    m = re.search(r"starting ([0-9.]+) s", parts or "")
    return float(m.group(1)) if m else None


def main():
    rows = [json.loads(l) for l in open(sys.argv[1])]
    builds = [b for b in ("before", "after") if b in rows[0]]
    bands = {}
    for r in rows:
        t, band, _ = target(r["n"], r["iforest_s"])
        v = bands.setdefault(band, {"n": 0, **{b: [0, []] for b in builds}})
        v["n"] += 1
        for b in builds:
            if r[b]["s"] <= t:
                v[b][0] += 1
            else:
                v[b][1].append("%s %.2f (%.2f)" % (r["table"].split("/")[-1], r[b]["s"], t))
    for band, v in bands.items():
        print("%s: %d tables; " % (band, v["n"]) + "; ".join(
            "%s met %d, misses: %s" % (b, v[b][0], ", ".join(v[b][1]) or "none") for b in builds))
    for b in builds:
        st = [s for s in (starting(r[b]["parts"]) for r in rows) if s is not None]
        print("%s: total %.1f s, peak RSS median %d MB, largest %d MB, mean starting %.2f s" % (
            b, sum(r[b]["s"] for r in rows), statistics.median(r[b]["rss_mb"] for r in rows),
            max(r[b]["rss_mb"] for r in rows), statistics.mean(st) if st else float("nan")))
    print("IForest: total %.1f s" % sum(r["iforest_s"] for r in rows))
    if len(builds) == 2:
        d = [r["after"]["s"] - r["before"]["s"] for r in rows]
        same = sum(r["after"]["rocauc"] == r["before"]["rocauc"] and r["after"]["prauc"] == r["before"]["prauc"] for r in rows)
        print("after - before: median %+.3f s, faster on %d of %d; ROCAUC and PRAUC identical on %d" % (
            statistics.median(d), sum(x < 0 for x in d), len(d), same))
    if "--table" in sys.argv:
        print("\n| table | rows × columns | IForest fit+score | udocc fit | udocc / IForest | target | met | peak RSS | ROCAUC udocc / IForest |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            a, f = r[builds[-1]], r["iforest_s"]
            t, _, ts = target(r["n"], f)
            print("| %s | %d × %d | %.2f s | %.2f s | %.1f× | %s | %s | %d MB | %.3f / %.3f |" % (
                r["table"], r["n"], r["d"], f, a["s"], a["s"] / f, ts, "yes" if a["s"] <= t else "no",
                a["rss_mb"], a["rocauc"], r["iforest_rocauc"]))


if __name__ == "__main__":
    main()
