#!/usr/bin/env bash
# build.sh: build udocc (bin/udocc and lib/libudocc_torch.so), or test it.
#
#   ./build.sh          build the shim (only when its sources changed) and bin/udocc
#   ./build.sh test     build, then go vet ./... and the whole test suite
#   ./build.sh shim     build only lib/libudocc_torch.so
#
# libtorch is looked for in this order: $LIBTORCH (an official libtorch folder or a pip
# wheel's site-packages/torch), third_party/libtorch, the system (Debian's libtorch-dev).
# Where none is found and this runs as root on Debian, libtorch-dev is installed with apt.
set -euo pipefail
cd "$(dirname "$0")"
root=$(pwd)

log() { printf 'build.sh: %s\n' "$*" >&2; }

find_libtorch() {
  if [ -n "${LIBTORCH:-}" ]; then
    [ -d "$LIBTORCH/include/torch" ] || { log "LIBTORCH=$LIBTORCH has no include/torch"; exit 1; }
    echo "$LIBTORCH"; return
  fi
  if [ -d third_party/libtorch/include/torch ]; then
    echo "$root/third_party/libtorch"; return
  fi
  if [ -f /usr/include/torch/csrc/api/include/torch/torch.h ]; then
    echo system; return
  fi
  if [ "$(id -u)" = 0 ] && [ -f /etc/debian_version ]; then
    log "installing libtorch-dev with apt (with its recommends, which bring OpenBLAS)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2
    apt-get install -y -q libtorch-dev >&2
    echo system; return
  fi
  log "no libtorch found: set LIBTORCH, unpack one into third_party/libtorch, or install libtorch-dev"
  exit 1
}

# shim_flags sets CXXFLAGS_T and LDFLAGS_T for the libtorch in $1.
shim_flags() {
  local lt=$1 libdir abi
  if [ "$lt" = system ]; then
    CXXFLAGS_T=(-I/usr/include/torch/csrc/api/include)
    libdir=$(dirname "$(ls /usr/lib/*/libtorch.so /usr/lib/libtorch.so 2>/dev/null | head -n 1)")
    LDFLAGS_T=(-L"$libdir")
  else
    CXXFLAGS_T=(-isystem "$lt/include" -isystem "$lt/include/torch/csrc/api/include")
    libdir="$lt/lib"
    LDFLAGS_T=(-L"$libdir" -Wl,-rpath,"$libdir")
  fi
  abi=$(grep -ho 'D_GLIBCXX_USE_CXX11_ABI=[01]' \
    "$lt"/share/cmake/Torch/TorchConfig.cmake /usr/lib/*/cmake/Torch/TorchConfig.cmake 2>/dev/null | head -n 1 || true)
  [ -n "$abi" ] && CXXFLAGS_T+=("-$abi")
  LDFLAGS_T+=(-Wl,--no-as-needed)
  if [ -e "$libdir/libtorch_cuda.so" ]; then
    LDFLAGS_T+=(-ltorch_cuda)  # kept with --no-as-needed, or CUDA is never registered
    log "linking libtorch_cuda from $libdir"
  fi
  LDFLAGS_T+=(-ltorch -ltorch_cpu -lc10 -Wl,--as-needed)
}

build_shim() {
  local lt out=lib/libudocc_torch.so stamp=lib/.shim-stamp key
  lt=$(find_libtorch)
  shim_flags "$lt"
  key=$(cat torch/shim/udocc_torch.cpp torch/shim/udocc_torch.h build.sh | sha256sum | cut -c1-16)
  key="$key $lt"
  if [ -f "$out" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ]; then
    return
  fi
  mkdir -p lib
  log "compiling the shim against libtorch: $lt"
  g++ -std=c++17 -O2 -fPIC -shared -Wall -Wno-unused-parameter "${CXXFLAGS_T[@]}" \
    torch/shim/udocc_torch.cpp -o "$out.tmp" "${LDFLAGS_T[@]}"
  mv "$out.tmp" "$out"
  echo "$key" > "$stamp"
}

build_go() {
  mkdir -p bin
  # RUNPATH $ORIGIN/../lib: bin/udocc finds lib/libudocc_torch.so from any folder.
  go build -trimpath -ldflags "-extldflags '-Wl,-rpath,\$ORIGIN/../lib'" -o bin/udocc ./cmd/udocc
}

case "${1:-build}" in
  build) build_shim; build_go ;;
  shim) build_shim ;;
  test)
    build_shim
    build_go
    go vet ./...
    go test -count=1 -timeout 20m ./...
    ;;
  *) log "unknown command $1 (use: build, test, shim)"; exit 2 ;;
esac
