#!/usr/bin/env bash
# run.sh UDOCC DIR: `udocc fit` (defaults, --explain 0, one thread) on every DIR/*.npz that
# make.py wrote, two at a time, each into DIR/fits/NAME (kept: a rerun skips fits done).
set -euo pipefail
udocc=$(realpath "$1"); dir=$2
mkdir -p "$dir/fits"
ls "$dir"/*.npz | xargs -P 2 -I{} bash -c '
  o='"$dir"'/fits/$(basename {} .npz)
  [ -f "$o/scores.csv" ] || '"$udocc"' fit {} --out "$o" --quiet --explain 0 --threads 1 --force > "$o.log" 2>&1'
