#!/usr/bin/env bash
# cuda-carry.sh: build here, where Go is, everything a CUDA machine without Go needs to
# run udocc's CUDA tests and timings; there, scripts/cuda-run.sh builds the shim against
# that machine's libtorch and runs them (docs/cuda.md).
#
#   scripts/cuda-carry.sh [DIR]      DIR defaults to .carry (git ignores it)
#
# DIR then holds:
#   bin/udocc                  the CLI, built by ./build.sh
#   bin/udocc-bench            the paper's benchmark grid (bench/cmd/udocc-bench)
#   test/NAME.test             go test -c -tags cuda of every package with CUDA tests
#                              (NAME is the package's path with - for /; NAME.dir names it)
#   pkg/PATH/                  each test's working folder (with the package's testdata/)
#   build.sh, internal/torch/shim/    the shim's source and the one script that holds its flags
#   data/odds/                 the ODDS .mat files, when found ($ODDS or ../shared/data/odds)
#   scripts/cuda-run.sh        run there: bash scripts/cuda-run.sh
#   MANIFEST                   the commit, the Go version and what was built
#
# The Go binaries reach libtorch only through the shim's plain C ABI (udocc_torch.h) and
# need just libudocc_torch.so, so the shim that cuda-run.sh builds there against a CUDA
# libtorch takes the place of the CPU one they were linked against here. They need glibc
# 2.34 or later there.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-.carry}

log() { printf 'cuda-carry: %s\n' "$*" >&2; }

./build.sh  # the shim the binaries link against here, and bin/udocc

rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/test" "$dir/pkg" "$dir/internal/torch/shim" "$dir/scripts"
# bin/udocc as build.sh links it, but with a RUNPATH and no stand-ins (lib/inert, made for
# this machine's Debian libtorch): there, LD_LIBRARY_PATH and the shim built beside it
# must win over the absolute path cgo records, as a DT_RPATH would not let them.
go build -tags udocc_shimlib -trimpath -ldflags "-extldflags '-Wl,-rpath,\$ORIGIN/../lib'" -o "$dir/bin/udocc" ./cmd/udocc
go build -tags udocc_shimlib -trimpath -ldflags "-extldflags '-Wl,-rpath,\$ORIGIN/../lib'" -o "$dir/bin/udocc-bench" ./bench/cmd/udocc-bench
# Without symbol tables the carry stays under the device tool's 64 MiB (stack traces keep
# their function names and lines: Go's pclntab is not stripped).
strip "$dir/bin/udocc" "$dir/bin/udocc-bench" 2>/dev/null || log "no strip: the carry is larger"

# Packages with CUDA tests are those whose test files change with the cuda tag.
list() { go list -e "$@" -f '{{.Dir}}|{{join .TestGoFiles ","}}|{{join .XTestGoFiles ","}}' ./...; }
pkgs=$({ diff <(list) <(list -tags cuda) || true; } | sed -n 's/^> \([^|]*\)|.*/\1/p')
[ -n "$pkgs" ] || { log "no package has tests with the cuda build tag"; exit 1; }
for abs in $pkgs; do
  rel=${abs#"$(pwd)/"}
  name=${rel//\//-}
  log "go test -c -tags cuda,udocc_shimlib ./$rel -> test/$name.test"
  # RUNPATH $ORIGIN/../lib after cgo's absolute one; cuda-run.sh also sets LD_LIBRARY_PATH.
  go test -c -tags cuda,udocc_shimlib -ldflags "-s -w -extldflags '-Wl,-rpath,\$ORIGIN/../lib'" -o "$dir/test/$name.test" "./$rel"
  echo "$rel" > "$dir/test/$name.dir"  # the folder cuda-run.sh runs it in: pkg/$rel
  mkdir -p "$dir/pkg/$rel"
  if [ -d "$rel/testdata" ]; then cp -r "$rel/testdata" "$dir/pkg/$rel/"; fi
done

# The ODDS files, for a short 'udocc-bench --device cuda' there (about 2 MB).
odds=${ODDS:-$(pwd)/../shared/data/odds}
if [ -d "$odds" ]; then
  mkdir -p "$dir/data/odds"
  cp "$odds"/*.mat "$dir/data/odds/"
else
  log "no ODDS files in $odds (set ODDS): cuda-run.sh will skip udocc-bench"
fi

cp build.sh "$dir/"
# Every C++ source and header under the shim, subfolders kept (build.sh also compiles
# shim/fast/ and shim/pintest/).
(cd internal/torch/shim && find . -name '*.cpp' -o -name '*.h') | while read -r f; do
  mkdir -p "$dir/internal/torch/shim/$(dirname "$f")"
  cp "internal/torch/shim/$f" "$dir/internal/torch/shim/$f"
done
# The torch package's tests compile shim/pintest/ sources from their own folder.
if [ -d "$dir/pkg/internal/torch" ]; then
  cp -r "$dir/internal/torch/shim" "$dir/pkg/internal/torch/"
fi
cp scripts/cuda-run.sh "$dir/scripts/"
# The PyTorch eager baseline, timed beside udocc on the same GPU and wheel.
eager=${EAGER:-$(pwd)/../shared/baseline/torch_epoch.py}
if [ -f "$eager" ]; then cp "$eager" "$dir/scripts/torch_epoch.py"; else log "no $eager: cuda-run.sh will not time PyTorch eager"; fi

{
  echo "udocc carry for a CUDA machine: bash scripts/cuda-run.sh (docs/cuda.md)"
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) with $(go version)"
  echo "built against: libtorch $(bin/udocc version | sed -n 's/^libtorch //p')"
  echo "packages: $(for abs in $pkgs; do printf '%s ' "${abs#"$(pwd)/"}"; done)"
  echo "files:"
  (cd "$dir" && find . -type f ! -name MANIFEST | sort | sed 's/^\.\//  /')
} > "$dir/MANIFEST"
log "$(du -sh "$dir" | cut -f1) in $dir; there: bash $dir/scripts/cuda-run.sh"
# The device tool carries at most 64 MiB: a packed copy is about a third of the folder.
# There: tar xzf .carry.tar.gz && bash .carry/scripts/cuda-run.sh
tar czf "$dir.tar.gz" "$dir"
log "$(du -sh "$dir.tar.gz" | cut -f1) in $dir.tar.gz"
