#!/usr/bin/env bash
# bench/speed.sh: seconds per epoch of udocc beside a plain PyTorch eager loop, in one run.
#
#   bench/speed.sh [OUTDIR]     (default bench/results)
#
# For n = 10^3 ... 10^7 rows (d = 20, 32-16-8) and the mnist shape (7603 x 100, 64-32-16)
# it times one pretraining epoch and one fine-tuning epoch (training plus scoring every
# row) of udocc (training's BenchmarkSpeed, K = 1 and K = 10 models in lockstep) and of
# ../shared/baseline/torch_epoch.py (K = 1), all on one thread, shape after shape, udocc
# and eager back to back on the same machine, and writes OUTDIR/speed.md (the table),
# OUTDIR/speed.tsv (its numbers) and OUTDIR/figures/speed-{pretrain,finetune}.png (log-log
# seconds per epoch against n, with the arithmetic floor). Every ratio compares figures
# from this one run. SIZES="1000 10000" limits the sizes (mnist is always timed).
#
# Columns: eager is the baseline as Debian's python3-torch runs it (matrix products on
# the reference BLAS); eager+dnnl is the same script with the shim preloaded, so its
# matrix products run on the oneDNN sgemm that udocc uses (only where the shim has it).
# floor is the arithmetic: MACs per row x rows x 2 / the GFLOP/s of a 2048^3 sgemm measured
# here on one thread (the best of ten), with 3 x the network's MACs per row for a training step (forward,
# backward) and 1 x the encoder's for scoring a row.
set -euo pipefail
cd "$(dirname "$0")/.."
outdir=${1:-bench/results}
py=/usr/bin/python3
base=../shared/baseline/torch_epoch.py
sizes=${SIZES:-1000 10000 100000 1000000 10000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

./build.sh
go test -c -tags udocc_shimlib -o "$tmp/training.test" ./training
shim=$(pwd)/lib/libudocc_torch.so
dnnl=
# (Only a shim from before issue 41 exports sgemm_: the shim no longer interposes BLAS, so
# the "eager+dnnl" column needs such an older lib/libudocc_torch.so.)
if [ "$(nm -D --defined-only "$shim" | grep -cw sgemm_)" -gt 0 ]; then dnnl=$shim; fi

# gflops: one thread's sgemm rate, on the GEMM udocc's matrix products use: the best of
# ten 2048^3 products, so that a busy machine lowers the floor as little as it can.
gflops=$(LD_PRELOAD=$dnnl OMP_NUM_THREADS=1 "$py" -c '
import time, torch
torch.set_num_threads(1)
a, b = torch.randn(2048, 2048), torch.randn(2048, 2048)
torch.mm(a, b); best = float("inf")
for _ in range(10):
    t = time.perf_counter(); torch.mm(a, b); best = min(best, time.perf_counter() - t)
print("%.1f" % (2 * 2048**3 / best / 1e9))')

# macs: MACs per row of the layer sizes "d,h1,...,hL" (bias-free Linear layers).
macs() { awk -F, '{ s = 0; for (i = 1; i < NF; i++) s += $i * $(i + 1); print s }' <<<"$1"; }

shapes=()
for n in $sizes; do shapes+=("$n 20 32,16,8"); done
shapes+=("7603 100 64,32,16")

printf 'n\td\tphase\tk1_ms\tk10_ms\teager_ms\teager_dnnl_ms\tfloor_ms\n' >"$tmp/tsv"
for s in "${shapes[@]}"; do
  read -r n d arch <<<"$s"
  # Three epochs (udocc: after an untimed one; eager: their median, so its first epoch is
  # not the one reported); one at 10^7, where an eager epoch takes a minute (there both
  # figures include the first epoch's start-up).
  epochs=3
  [ "$n" -ge 10000000 ] && epochs=1
  log="$tmp/go-$n-$d.txt"
  (cd training && OMP_NUM_THREADS=1 "$tmp/training.test" -test.run '^$' -test.bench "Speed/n=$n,d=$d/" \
    -test.benchtime "${epochs}x") >"$log"
  args=(--n "$n" --d "$d" --arch "$arch" --threads 1 --ae-epochs "$epochs" --oc-epochs "$epochs")
  eager=$("$py" "$base" "${args[@]}")
  eagerd=$eager
  [ -n "$dnnl" ] && eagerd=$(LD_PRELOAD=$dnnl "$py" "$base" "${args[@]}")
  enc=$(macs "$d,$arch")
  ae=$((2 * enc))
  for phase in pretrain finetune; do
    k1=$(awk -v p="K=1/$phase-" 'index($1, p) { for (i = 1; i < NF; i++) if ($(i + 1) == "ms/model-epoch") print $i }' "$log")
    k10=$(awk -v p="K=10/$phase-" 'index($1, p) { for (i = 1; i < NF; i++) if ($(i + 1) == "ms/model-epoch") print $i }' "$log")
    key=oc_epoch_ms flops=$((2 * (3 * enc + enc)))
    [ $phase = pretrain ] && key=ae_epoch_ms flops=$((2 * 3 * ae))
    e=$(sed -E "s/.*\"$key\": ([0-9.]+).*/\1/" <<<"$eager")
    ed=$(sed -E "s/.*\"$key\": ([0-9.]+).*/\1/" <<<"$eagerd")
    [ -n "$dnnl" ] || ed=NaN
    floor=$(awk -v f="$flops" -v n="$n" -v g="$gflops" 'BEGIN { printf "%.3f", f * n / (g * 1e9) * 1e3 }')
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$d" "$phase" "$k1" "$k10" "$e" "$ed" "$floor" >>"$tmp/tsv"
  done
  echo "bench/speed.sh: n=$n d=$d done" >&2
done

{
  echo "# udocc beside PyTorch eager, seconds per epoch"
  echo
  echo "$(date -u +%F), $(nproc) cores, one thread each, sgemm $gflops GFLOP/s (2048^3, one thread, best of 10),"
  echo "batch 128, \`bench/speed.sh\`. ms per model-epoch; ratios within this one run; udocc and"
  echo "eager of a shape were timed back to back."
  echo
  echo "| n x d | phase | udocc K=1 | udocc K=10 per model | eager | eager+dnnl | K=1 / eager | K=1 / eager+dnnl | floor | K=1 / floor |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  awk -F'\t' 'NR > 1 {
    printf "| %d x %d | %s | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f | %.1f |\n",
      $1, $2, $3, $4, $5, $6, $7, $4 / $6, $4 / $7, $8, $4 / $8 }' "$tmp/tsv"
} >"$tmp/md"
mkdir -p "$outdir/figures"
go run ./bench/speedfig "$tmp/tsv" "$outdir/figures"
cp "$tmp/tsv" "$outdir/speed.tsv.tmp" && mv "$outdir/speed.tsv.tmp" "$outdir/speed.tsv"
cp "$tmp/md" "$outdir/speed.md.tmp" && mv "$outdir/speed.md.tmp" "$outdir/speed.md"
cat "$outdir/speed.md"
