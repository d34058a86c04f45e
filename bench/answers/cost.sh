#!/bin/sh
# Times udocc fit without and with answers side by side, as the hidden tables are judged:
# a label-free fit, `udocc review --k 20` twice with the answers filled in from the
# table's y (fill.py), then `udocc fit TABLE --seed 0` and `udocc fit TABLE --labels L.csv
# --seed 0`, alternated REPEATS times (default 3). Prints each table's median seconds and
# their ratio. Usage, from the repository root after ./build.sh:
#   bench/answers/cost.sh TABLE... (paths under $UDOCC_DATA or ../shared/data)
set -e
data=${UDOCC_DATA:-../shared/data}
out=${OUT:-/tmp/udocc-answers-cost}
repeats=${REPEATS:-3}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
now() { date +%s.%N; }
printf 'table\tlabel-free s\twith answers s\tratio\n'
for t in "$@"; do
	name=$(basename "${t%.*}")
	d=$out/$name
	rm -rf "$d" && mkdir -p "$d"
	bin/udocc fit "$data/$t" --seed 0 --out "$d/m" --quiet --force >/dev/null
	for r in 1 2; do
		bin/udocc review --model "$d/m/model" "$data/$t" --k 20 --seed 0 --labels "$d/L.csv" >/dev/null
		/usr/bin/python3 bench/answers/fill.py "$d/L.csv" "$d/m/scores.csv"
	done
	: >"$d/free.txt"
	: >"$d/sharp.txt"
	i=0
	while [ $i -lt "$repeats" ]; do
		a=$(now)
		bin/udocc fit "$data/$t" --seed 0 --out "$d/free" --quiet --force >/dev/null
		b=$(now)
		bin/udocc fit "$data/$t" --labels "$d/L.csv" --seed 0 --out "$d/sharp" --quiet --force >/dev/null
		c=$(now)
		echo "$b - $a" | bc >>"$d/free.txt"
		echo "$c - $b" | bc >>"$d/sharp.txt"
		i=$((i + 1))
	done
	f=$(median <"$d/free.txt")
	s=$(median <"$d/sharp.txt")
	printf '%s\t%.2f\t%.2f\t%.2f\n' "$name" "$f" "$s" "$(echo "$s / $f" | bc -l)"
done
