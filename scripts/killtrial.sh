#!/usr/bin/env bash
# killtrial.sh: kill `udocc fit --out DIR` with SIGKILL at random moments, DIR holding a
# good result, and check after each kill that DIR holds the previous result byte for
# byte or the new one whole (every file, of the killed run's seed, and `udocc score` with
# its model gives its scores, rank and labels again). Then a whole fit must leave no
# temporaries beside DIR. Prints one line per kill and the counts; exits 1 on a broken
# result. cmd/udocc's TestKillAtRandom is the quick version of this trial.
#
#   scripts/killtrial.sh [KILLS [DATA [FIT FLAGS...]]]
#   default: 25 kills, ../shared/data/odds/cardio.mat, --pretrain-epochs 20 --epochs 10
#   UDOCC=path/to/udocc picks the binary (default bin/udocc); KILL_FROM and KILL_TO the
#   window of the kills, as fractions of a whole fit's time (default 0.05 and 1.30)
set -euo pipefail
cd "$(dirname "$0")/.."
udocc=$(realpath "${UDOCC:-bin/udocc}")
kills=${1:-25}
data=$(realpath "${2:-../shared/data/odds/cardio.mat}")
shift $(( $# < 2 ? $# : 2 ))
flags=("$@")
[ ${#flags[@]} -gt 0 ] || flags=(--pretrain-epochs 20 --epochs 10)
work=$(mktemp -d -t udocc-killtrial-XXXXXX)
trap 'rm -rf "$work"' EXIT
out=$work/out

fit() { "$udocc" fit --quiet "${flags[@]}" --seed "$1" --out "$out" "$data"; }
snapshot() { (cd "$out" && find . -type f -print0 | sort -z | xargs -0 sha256sum) 2>/dev/null || true; }
# whole SEED: out is one whole result of the fit with SEED.
whole() {
  local f
  for f in summary.json scores.csv history.csv loss.png scores.png model/model.json \
    "model/member-$1.pt" "model/autoencoder-$1.pt"; do
    [ -s "$out/$f" ] || { echo "missing $f"; return 1; }
  done
  grep -Eq "\"seed\": $1(,|$)" "$out/summary.json" || { echo "summary.json is not seed $1's"; return 1; }
  rm -rf "$work/scored"
  "$udocc" score --quiet --model "$out/model" --out "$work/scored" "$data" >/dev/null || return 1
  cmp -s <(cut -d, -f2-4 "$out/scores.csv") <(cut -d, -f2-4 "$work/scored/scores.csv") ||
    { echo "score gives other scores than the fit's scores.csv"; return 1; }
}

start=$(date +%s.%N)
fit 100 >/dev/null
full=$(echo "$(date +%s.%N) - $start" | bc)
whole 100
prev=$(snapshot)
kept=0 replaced=0 broken=0
for i in $(seq 1 "$kills"); do
  seed=$((200 + i))
  # by default from 5% to 130% of a whole fit: reading, both trainings, the writing, the swap
  delay=$(awk -v f="$full" -v r="$RANDOM" -v lo="${KILL_FROM:-0.05}" -v hi="${KILL_TO:-1.30}" \
    'BEGIN { printf "%.3f", f * (lo + (hi - lo) * r / 32767) }')
  "$udocc" fit --quiet "${flags[@]}" --seed "$seed" --out "$out" "$data" >/dev/null 2>&1 &
  pid=$! # udocc itself: a function run with & would be a subshell, and kill -9 would miss udocc
  sleep "$delay"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  now=$(snapshot)
  if [ "$now" = "$prev" ]; then
    kept=$((kept + 1)); what="previous result, byte for byte"
  elif why=$(whole "$seed"); then
    replaced=$((replaced + 1)); what="new result (seed $seed), whole"; prev=$now
  else
    broken=$((broken + 1)); what="BROKEN: $why"; prev=$now
  fi
  printf 'kill %2d at %6.2f s of a %.2f s fit: %s\n' "$i" "$delay" "$full" "$what"
done
fit 7 >/dev/null
whole 7
left=$(find "$work" -maxdepth 1 -name '.out.*' | wc -l)
echo "$kills kills: $kept left the previous result, $replaced the new one whole, $broken broken; $left temporaries beside --out after the next whole fit"
[ "$broken" -eq 0 ] && [ "$left" -eq 0 ]
