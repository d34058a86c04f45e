#!/usr/bin/env bash
# scripts/pima-csv.sh [PIMA.mat]: writes the ODDS pima table (../shared/data/odds/pima.mat
# by default) to stdout as a plain CSV with a header: the Pima Indians diabetes columns
# by their usual names and the label as Outcome (1 = anomaly, as ODDS marks it), with six
# cells blanked the ways real exports leave them (NA, empty, null, NaN) and one row with
# no value at all: the README's example table. udocc itself reads the MAT file (a fit of
# one epoch, whose --append-to copies the values exactly).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/../bin/udocc
mat=${1:-$here/../../shared/data/odds/pima.mat}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" fit --quiet --pretrain-epochs 1 --epochs 1 --screen-epochs 0 --explain 0 \
  --out "$tmp/o" --append-to "$tmp/x.csv" "$mat" >/dev/null
echo "Pregnancies,Glucose,BloodPressure,SkinThickness,Insulin,BMI,DiabetesPedigreeFunction,Age,Outcome"
paste -d, <(tail -n +2 "$tmp/x.csv" | cut -d, -f1-8) \
  <(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "true_label") c = i; next } { print $c }' "$tmp/o/scores.csv") |
  awk -F, -v OFS=, '
    NR == 1  { $2 = "NA" }
    NR == 6  { $6 = "" }
    NR == 11 { $5 = "null" }
    NR == 21 { for (i = 1; i <= 8; i++) $i = "" }
    NR == 34 { $7 = "NaN" }
    NR == 41 { $2 = "" }
    { print }'
