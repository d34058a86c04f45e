#!/usr/bin/env bash
# bench/scaling.sh: udocc's default fit on 1, 2, 4, 8 and 16 threads beside PyTorch eager
# at the same thread counts, in one run.
#
#   bench/scaling.sh [OUTDIR]     (default bench/results)
#
# For n = 10^5, 10^6 and 10^7 rows of 20 standard-normal columns (a .npy of float32):
#   fit   the wall time and peak RSS of `udocc fit --threads T` (the default ensemble; at 10^7 with
#         --screen-epochs 1 --pretrain-epochs 1 --epochs 2, as a full fit there takes hours
#         on few cores), and whether its scores.csv and model.json are the bytes of T = 1;
#   epoch training's BenchmarkThreads (10^5 and 10^6): one pretraining and one fine-tuning
#         epoch of the ensemble's K = 5 group;
#   eager ../shared/baseline/torch_epoch.py --threads T (one model, K = 1: what a user
#         would write), its pretraining and fine-tuning epoch.
# It writes OUTDIR/scaling.md and OUTDIR/scaling.tsv. THREADS="1 2" and SIZES="100000"
# limit the grid. Thread counts above the machine's cores are run and marked: they show
# what oversubscription costs, not a speedup; above four a core (udocc's limit) skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
outdir=${1:-bench/results}
threads=${THREADS:-1 2 4 8 16}
sizes=${SIZES:-100000 1000000 10000000}
py=/usr/bin/python3
base=../shared/baseline/torch_epoch.py
cores=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

./build.sh
go test -c -tags udocc_shimlib -o "$tmp/training.test" ./internal/training
mkdir -p "$outdir"
tsv=$outdir/scaling.tsv
printf 'n\tthreads\tfit_s\tidentical\tpretrain_ms\tfinetune_ms\teager_pretrain_ms\teager_finetune_ms\tpeak_rss_mb\n' >"$tsv"

for n in $sizes; do
  "$py" -c "import numpy as np; np.save('$tmp/t.npy', np.random.default_rng(0).standard_normal(($n, 20)).astype(np.float32))"
  short=()
  [ "$n" -ge 10000000 ] && short=(--screen-epochs 1 --pretrain-epochs 1 --epochs 2)
  for t in $threads; do
    if [ "$t" -gt $((4 * cores)) ]; then  # udocc fit refuses more than 4 threads a core
      echo "scaling.sh: --threads $t is over 4 a core on $cores cores: skipped" >&2
      continue
    fi
    out=$tmp/fit-$t
    start=$(date +%s.%N)
    /usr/bin/time -f %M -o "$tmp/rss" bin/udocc fit "$tmp/t.npy" --seed 0 --threads "$t" --quiet "${short[@]}" --out "$out" >/dev/null
    fit=$(echo "$(date +%s.%N) - $start" | bc)
    rss=$(( $(cat "$tmp/rss") / 1000 ))
    same=yes
    if [ "$t" != "$(echo "$threads" | awk '{print $1}')" ]; then
      first=$tmp/fit-$(echo "$threads" | awk '{print $1}')
      cmp -s "$first/scores.csv" "$out/scores.csv" && cmp -s "$first/model/model.json" "$out/model/model.json" || same=no
      rm -rf "$out"
    fi
    pre=- fine=-
    if [ "$n" -le 1000000 ]; then
      bench=$("$tmp/training.test" -test.run '^$' -test.bench "^BenchmarkThreads$/^n=$n\$/^threads=$t\$/" -test.benchtime 2x 2>/dev/null)
      pre=$(awk '/pretrain/ { for (i = 1; i < NF; i++) if ($(i+1) == "ms/epoch") print $i }' <<<"$bench")
      fine=$(awk '/finetune/ { for (i = 1; i < NF; i++) if ($(i+1) == "ms/epoch") print $i }' <<<"$bench")
    fi
    eager=$(OMP_NUM_THREADS=$t "$py" "$base" --npy "$tmp/t.npy" --arch 32,16,8 --threads "$t" \
      --ae-epochs "$([ "$n" -ge 10000000 ] && echo 1 || echo 3)" --oc-epochs "$([ "$n" -ge 10000000 ] && echo 1 || echo 3)")
    epre=$("$py" -c "import json,sys; print(json.loads(sys.argv[1])['ae_epoch_ms'])" "$eager")
    efine=$("$py" -c "import json,sys; print(json.loads(sys.argv[1])['oc_epoch_ms'])" "$eager")
    printf '%s\t%s\t%.2f\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$t" "$fit" "$same" "$pre" "$fine" "$epre" "$efine" "$rss" >>"$tsv"
  done
  rm -rf "$tmp"/fit-* "$tmp/t.npy"
done

{
  echo "# udocc's default fit on T threads beside PyTorch eager"
  echo
  echo "bench/scaling.sh on $(date -u +%F), $cores cores ($(lscpu | sed -n 's/^Model name: *//p' | head -n 1))."
  echo "fit: wall time of the default ensemble fit (10^7: one screening, one pretraining and two"
  echo "fine-tuning epochs), its speedup over T = 1, and whether scores.csv and model.json are the"
  echo "bytes of T = 1. epoch: one epoch of the K = 5 group (ms). eager: torch_epoch.py, one model."
  echo "T above $cores cores is oversubscribed (marked *)."
  echo
  echo "| n | T | fit s | speedup | same bytes | fit peak RSS MB | pretrain ms | finetune ms | eager pretrain ms | eager finetune ms |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  awk -F'\t' -v cores="$cores" 'NR > 1 {
    if (!($1 in one)) one[$1] = $3
    mark = ($2 > cores) ? "*" : ""
    printf "| %s | %s%s | %s | %.2f | %s | %s | %s | %s | %s | %s |\n", $1, $2, mark, $3, one[$1] / $3, $4, $9, $5, $6, $7, $8
  }' "$tsv"
} >"$outdir/scaling.md"
cat "$outdir/scaling.md"
