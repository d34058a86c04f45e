#!/bin/bash
# fitcost.sh: wall time, CPU time and peak RSS of the default fit with explanations
# (`--explain 3`) against the same fit with `--explain 0`, interleaved: every
# configuration once a round (so a burst of load from other work falls on both sides),
# RUNS rounds. One line a fit, then the medians by table, threads and explain.
#
#	bench/explain/fitcost.sh BIN RUNS TABLE...   # e.g. bin/udocc 3 planted50.csv mnist.mat
#
# The planted table: go run ./bench/explain -planted planted50.csv. THREADS (default
# "2 8") names the --threads values. Needs GNU time (/usr/bin/time).
set -euo pipefail
bin=$1
runs=$2
shift 2
threads=${THREADS:-2 8}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-16s %7s %7s %4s %8s %8s %8s  %s\n' table threads explain run wall_s cpu_s rss_mb load1
for r in $(seq 1 "$runs"); do
	for t in $threads; do
		for tab in "$@"; do
			for e in 0 3; do
				rm -rf "$out/fit"
				/usr/bin/time -v -o "$out/time" "$bin" fit --quiet --threads "$t" --explain "$e" --out "$out/fit" "$tab" >/dev/null 2>"$out/err" ||
					{ cat "$out/err" >&2; exit 1; }
				awk -v tab="$(basename "$tab")" -v t="$t" -v e="$e" -v r="$r" -v load="$(cut -d' ' -f1 /proc/loadavg)" '
					/User time/ {u=$NF} /System time/ {s=$NF}
					/Elapsed \(wall clock\)/ {n=split($NF,p,":"); w=0; for(i=1;i<=n;i++) w=w*60+p[i]}
					/Maximum resident set size/ {m=$NF/1024}
					END {printf "%-16s %7d %7d %4d %8.2f %8.2f %8.1f  %s\n", tab, t, e, r, w, u+s, m, load}' "$out/time"
			done
		done
	done
done | tee "$out/runs"
echo
echo "medians: table threads | wall 0 / 3 (ratio) | cpu 0 / 3 (ratio) | rss 0 / 3 (ratio)"
sort -k1,1 -k2,2n -k3,3n "$out/runs" | awk '
	function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	{ k = $1 " " $2; if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
	  c = k " " $3; n[c]++; W[c, n[c]] = $5; C[c, n[c]] = $6; R[c, n[c]] = $7 }
	END { for (i = 1; i <= nk; i++) { k = keys[i]
		for (e = 0; e <= 3; e += 3) { c = k " " e; delete a; for (j = 1; j <= n[c]; j++) a[j] = W[c, j]; w[e] = med(a, n[c])
			delete a; for (j = 1; j <= n[c]; j++) a[j] = C[c, j]; u[e] = med(a, n[c])
			delete a; for (j = 1; j <= n[c]; j++) a[j] = R[c, j]; m[e] = med(a, n[c]) }
		printf "%s | %.2f / %.2f (%.2f) | %.2f / %.2f (%.2f) | %.0f / %.0f (%.2f)\n", k, w[0], w[3], w[3] / w[0], u[0], u[3], u[3] / u[0], m[0], m[3], m[3] / m[0] } }'
