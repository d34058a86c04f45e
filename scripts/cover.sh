#!/usr/bin/env bash
# cover.sh: coverage of udocc's command-line tests, per package, counting both the runs
# of the built binary (built with -cover when UDOCC_COVERDIR is set; they write their
# counters there through GOCOVERDIR) and the tests that run the command in process
# (-test.gocoverdir writes theirs into the same folder).
#
#   scripts/cover.sh [FOLDER]    default FOLDER: a fresh temporary folder
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-$(mktemp -d -t udocc-cover-XXXXXX)}
mkdir -p "$dir"
UDOCC_COVERDIR=$dir go test -count=1 -cover -coverpkg=github.com/udocc/udocc/... ./cmd/udocc/ -args -test.gocoverdir="$dir"
echo "coverage of the command's tests (binary and in process), in $dir:"
go tool covdata percent -i "$dir"
