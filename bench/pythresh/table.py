#!/usr/bin/env python3
"""PyThresh's rules beside udocc's counts, on the same scores: per group, then over groups.

  table.py STUDY_DIR RULES.jsonl [RULES.jsonl ...] > bench/study-real/pythresh.md

STUDY_DIR holds count-heldout.jsonl (`udocc-bench --study --real --learn-count`: every
fit's held-out learned count and larger/kmeans's share); RULES are
../shared/peers/pythresh_rules.py's lines on the folders `go run ./bench/pythresh` wrote
(TABLE-SEED). Every count's |ln(selected/true)| (a count of 0 taken as one row) is
averaged per source group, then over groups; the udocc counts' differences from each rule
come with a paired bootstrap interval over the groups.
"""
import collections, json, math, os, random, sys

study, rule_files = sys.argv[1], sys.argv[2:]
held = [json.loads(l) for l in open(os.path.join(study, "count-heldout.jsonl"))]
seed = None
per = collections.defaultdict(dict)  # count -> table -> (|ln|, within)
group, truth = {}, {}
for r in held:
    if r["source"]:
        continue
    name = f"{r['table'].replace('/', '_')}-{r['seed']}"
    group[name] = r["group"]
    t, n = r["true"], r["n"]
    truth[name] = t
    for count, share in (("udocc learned (held out)", r["share"]), ("udocc larger/kmeans (the default before the learned counts)", r["larger_kmeans"])):
        a = abs(math.log(max(share, 1 / n) / t))
        per[count][name] = (a, a <= math.log(1.5) + 1e-12)
errors = collections.Counter()
for f in rule_files:
    for l in open(f):
        r = json.loads(l)
        if "abs_ln" not in r:
            errors[r["rule"]] += 1
            continue
        # Against the table's own share (the fit's), not that of the 5,000 scores kept,
        # which may hold none of a table's few anomalies.
        t = truth[r["table"]]
        p = max(r["selected"], 1 / r["n"])
        a = abs(math.log(p / t))
        per[r["rule"]][r["table"]] = (a, a <= math.log(1.5) + 1e-12)
tables = {t for c, v in per.items() if not c.startswith("udocc") for t in v}
for c in [c for c in per if c.startswith("udocc")]:
    per[c] = {t: v for t, v in per[c].items() if t in tables}
ran = [c for c in per if any(t in group for t in per[c])]
udocc = [c for c in ran if c.startswith("udocc")]
rules_ran = [c for c in ran if not c.startswith("udocc")]
seeds = sorted({t.rsplit("-", 1)[1] for t in tables})
if any(t not in per["udocc learned (held out)"] for t in tables):
    sys.exit("table.py: a rule ran on a fit the study has no held-out count for")


def by_group(c, k=0):
    g = collections.defaultdict(list)
    for t, v in per[c].items():
        if t in group:
            g[group[t]].append(float(v[k]))
    return {x: sum(v) / len(v) for x, v in g.items()}


def mean(xs):
    return sum(xs) / len(xs)


def boot(diffs, n=10000):
    rng = random.Random(0)
    m = sorted(mean([rng.choice(diffs) for _ in diffs]) for _ in range(n))
    return m[int(0.025 * n)], mean(diffs), m[int(0.975 * n)]


rows = []
for c in ran:
    g, w = by_group(c), by_group(c, 1)
    rows.append((mean(list(g.values())), mean(list(w.values())), c, len([t for t in per[c] if t in group]), len(g)))
rows.sort()
ngroups = len({group[t] for t in tables})
print("# PyThresh's rules against udocc's count, on the same scores\n")
print(f"Every PyThresh 1.1.1 rule (its defaults; ../shared/peers/pythresh_rules.py, RULE_TIMEOUT 10 s a rule) on the default fit's final "
      f"scores of every original table of the corpus study (seed {', '.join(seeds)}: {len(tables)} fits, {ngroups} source groups; a fit "
      f"above 5,000 rows on 5,000 scores evenly spaced in score order, as `go run ./bench/pythresh` writes them: some rules are too slow on "
      f"50,000), beside udocc's learned count held out by source group (bench/study-real/count.md) and larger/kmeans on the same fits. "
      f"Mean |ln(selected share / true share)| per group, then over the groups (a count of 0 taken as one row), and the share of fits "
      f"within ×1.5 likewise. Ranked best first. Regenerate: `go run ./bench/pythresh -study DIR -out OUT` then "
      f"`python3 bench/pythresh/table.py DIR OUT/rules.jsonl`.\n")
if errors:
    print("Rules that failed or timed out on some fits: " + ", ".join(f"{r} {n}" for r, n in sorted(errors.items())) + ".\n")
print("| count | mean \\|ln\\| per group, then over groups | within ×1.5 | fits (groups) it ran on |\n|---|---|---|---|")
for a, w, c, nt, ng in rows:
    print(f"| {c} | {a:.3f} | {100 * w:.0f} % | {nt} ({ng}) |")
best = [c for _, _, c, _, ng in rows if not c.startswith("udocc") and ng == ngroups][:5]
print(f"\nPaired bootstrap over the groups (10,000 resamples) of the difference in mean |ln| (udocc learned − rule; negative: udocc is better), 95 % interval, against every rule that ran on all {ngroups} groups:\n")
gl = by_group("udocc learned (held out)")
for c in [c for _, _, c, _, ng in rows if c != "udocc learned (held out)" and ng == ngroups]:
    gc = by_group(c)
    lo, mid, hi = boot([gl[g] - gc[g] for g in sorted(gc)])
    print(f"- vs {c}: {mid:+.3f} [{lo:+.3f}, {hi:+.3f}]")
cols = udocc + ["CONST0.1"] + best
print("\n| group | fits | " + " | ".join(cols) + " |\n|---|---|" + "---|" * len(cols))
gs = {c: by_group(c) for c in cols}
nfits = collections.Counter(group[t] for t in tables)
for g in sorted(nfits):
    print(f"| {g} | {nfits[g]} | " + " | ".join(f"{gs[c].get(g, float('nan')):.2f}" for c in cols) + " |")
