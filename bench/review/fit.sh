#!/bin/sh
# Fits every table of GROUPS.csv once with the defaults (seed 0) into bench/review/fits/,
# skipping tables already fitted. Usage: bench/review/fit.sh [DATA] (default /work/shared/data
# or $UDOCC_DATA). Run from the repository root after ./build.sh.
set -e
data=${1:-${UDOCC_DATA:-../shared/data}}
tail -n +2 "$data/GROUPS.csv" | while IFS=, read -r table group; do
	name=${table%.*}
	out=bench/review/fits/$name
	if [ -f "$out/summary.json" ]; then continue; fi
	nice -n 10 bin/udocc fit "$data/$table" --out "$out" --seed 0 --explain 0 --quiet --force > /dev/null
	echo "fitted $name"
done
