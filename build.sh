#!/usr/bin/env bash
# build.sh: build udocc (bin/udocc and lib/libudocc_torch.so), or test it.
#
#   ./build.sh          build the shim (only when its sources changed), bin/udocc and
#                       bin/udocc-bench (the paper's benchmark and the studies)
#   ./build.sh test     build (and the shim's pin test, lib/udocc_pin_test), then go vet ./...
#                       (also with -tags cuda), the whole test suite, and the root, torch,
#                       training and models packages again under DNNL_MAX_CPU_ISA=AVX2,
#                       and the root package with the packages it leans on under -race,
#                       then the gobuild check below
#   ./build.sh shim     build only lib/libudocc_torch.so (its link ordered so that a process
#                       starts sooner, every symbol bound where the plain link binds it:
#                       tools/shimlink/linkorder; UDOCC_PLAIN_LINK=1 keeps the plain link)
#                       and lib/inert, empty stand-ins that bin/udocc loads in place of the
#                       OpenCV and FFmpeg libraries Debian's libtorch names and never calls
#                       (tools/shimlink/inert; UDOCC_NO_INERT=1 leaves them out)
#   ./build.sh gobuild  go build ./cmd/udocc as a Go user does (go get, go install: the
#                       shim compiled by cgo from internal/torch/shim, no lib/); a check
#   ./build.sh flags    print the libtorch found and the shim's compile and link flags
#
# libtorch is looked for in this order: $LIBTORCH (an official libtorch folder, a pip
# wheel's site-packages/torch or the site-packages holding it, or "system"),
# third_party/libtorch, the system (Debian's libtorch-dev). Where none is found and this
# runs as root on Debian, libtorch-dev is installed with apt.
#
# CUDA (docs/cuda.md): a libtorch with lib/libtorch_cuda.so gives a shim with CUDA; one
# binary then runs on --device cpu and cuda. The libstdc++ ABI is read from libc10's
# exported names (TorchConfig.cmake, which some wheels lack, only where nm is missing);
# the C++ standard is c++17, or c++20 for libtorch 2.12 and later, and CXXSTD overrides it.
set -euo pipefail
cd "$(dirname "$0")"
root=$(pwd)

log() { printf 'build.sh: %s\n' "$*" >&2; }

find_libtorch() {
  if [ "${LIBTORCH:-}" = system ]; then
    echo system; return
  fi
  if [ -n "${LIBTORCH:-}" ]; then
    local lt=$LIBTORCH
    if [ ! -d "$lt/include/torch" ] && [ -d "$lt/torch/include/torch" ]; then
      lt=$lt/torch  # a site-packages folder
    fi
    [ -d "$lt/include/torch" ] || { log "LIBTORCH=$LIBTORCH has no include/torch"; exit 1; }
    [ -e "$lt/lib/libtorch.so" ] || { log "LIBTORCH=$LIBTORCH has no lib/libtorch.so"; exit 1; }
    (cd "$lt" && pwd); return
  fi
  if [ -d third_party/libtorch/include/torch ]; then
    echo "$root/third_party/libtorch"; return
  fi
  if [ -f /usr/include/torch/csrc/api/include/torch/torch.h ]; then
    install_gloo
    echo system; return
  fi
  if [ "$(id -u)" = 0 ] && [ -f /etc/debian_version ]; then
    log "installing libtorch-dev with apt (with its recommends, which bring OpenBLAS)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2
    apt-get install -y -q libtorch-dev libgloo-dev >&2
    echo system; return
  fi
  log "no libtorch found: set LIBTORCH, unpack one into third_party/libtorch, or install libtorch-dev"
  exit 1
}

# install_gloo installs Debian's libgloo-dev (Gloo's headers, which c10d's
# ProcessGroupGloo.hpp includes: data-parallel runs, docs/distributed.md) beside the
# system libtorch-dev, when it is missing and this runs as root on Debian.
install_gloo() {
  [ -f /usr/include/gloo/config.h ] && return
  if [ "$(id -u)" = 0 ] && [ -f /etc/debian_version ]; then
    log "installing libgloo-dev with apt (Gloo's headers, for data-parallel runs)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2
    apt-get install -y -q libgloo-dev >&2
  else
    log "no Gloo headers (/usr/include/gloo): the shim is built without data-parallel runs on the CPU"
  fi
}

# cxx11_abi prints 1 or 0, the _GLIBCXX_USE_CXX11_ABI that libc10 in $1 was built with:
# only under the new ABI do its exported names mention std::__cxx11. Where nm is
# missing it reads the TorchConfig.cmake $2; it prints nothing when neither tells.
cxx11_abi() {
  local libdir=$1 config=$2 n
  if command -v nm >/dev/null && [ -e "$libdir/libc10.so" ]; then
    n=$(nm -D --defined-only "$libdir/libc10.so" | grep -c __cxx11 || true)
    if [ "${n:-0}" -gt 0 ]; then echo 1; else echo 0; fi
    return
  fi
  grep -ho 'D_GLIBCXX_USE_CXX11_ABI=[01]' "$config" 2>/dev/null | head -n 1 | cut -d= -f2 || true
}

# cxx_std prints the -std= value for the libtorch whose headers are in $1: c++20 from
# libtorch 2.12 on (its ATen headers require it), c++17 before; CXXSTD overrides.
cxx_std() {
  local h=$1/torch/csrc/api/include/torch/version.h major minor
  if [ -n "${CXXSTD:-}" ]; then echo "$CXXSTD"; return; fi
  major=$(sed -n 's/^#define TORCH_VERSION_MAJOR \([0-9]*\).*/\1/p' "$h" 2>/dev/null)
  minor=$(sed -n 's/^#define TORCH_VERSION_MINOR \([0-9]*\).*/\1/p' "$h" 2>/dev/null)
  if [ "${major:-0}" -gt 2 ] || { [ "${major:-0}" -eq 2 ] && [ "${minor:-0}" -ge 12 ]; }; then
    echo c++20
  else
    echo c++17
  fi
}

# shim_flags sets CXXFLAGS_T and LDFLAGS_T for the libtorch in $1.
shim_flags() {
  local lt=$1 inc libdir config abi cuda=()
  if [ "$lt" = system ]; then
    inc=/usr/include
    libdir=$(dirname "$(ls /usr/lib/*/libtorch.so /usr/lib/libtorch.so 2>/dev/null | head -n 1)")
    config=$(ls /usr/lib/*/cmake/Torch/TorchConfig.cmake 2>/dev/null | head -n 1 || true)
    CXXFLAGS_T=(-I/usr/include/torch/csrc/api/include)
    LDFLAGS_T=(-L"$libdir")
  else
    inc=$lt/include
    libdir=$lt/lib
    config=$lt/share/cmake/Torch/TorchConfig.cmake
    CXXFLAGS_T=(-isystem "$lt/include" -isystem "$lt/include/torch/csrc/api/include")
    LDFLAGS_T=(-L"$libdir" -Wl,-rpath,"$libdir")  # RUNPATH: the shim finds this libtorch from anywhere
  fi
  CXXFLAGS_T=("-std=$(cxx_std "$inc")" "${CXXFLAGS_T[@]}")
  abi=$(cxx11_abi "$libdir" "$config")
  [ -n "$abi" ] && CXXFLAGS_T+=("-D_GLIBCXX_USE_CXX11_ABI=$abi")
  # libtorch_cuda (and libc10_cuda) are kept with --no-as-needed although the shim calls
  # nothing in them by name: their static initialisers are what register CUDA.
  [ -e "$libdir/libtorch_cuda.so" ] && cuda+=(-ltorch_cuda)
  [ -e "$libdir/libc10_cuda.so" ] && cuda+=(-lc10_cuda)
  [ ${#cuda[@]} -gt 0 ] && log "linking CUDA (${cuda[*]}) from $libdir"
  # NCCL for data-parallel CUDA runs: only a CUDA libtorch has ProcessGroupNCCL, and its
  # header needs nccl.h (a wheel's nvidia/nccl/include, or NCCL_INCLUDE) and the CUDA
  # toolkit's cuda.h (CUDA_HOME/include, /usr/local/cuda/include, or CUDA_INCLUDE).
  # UDOCC_NO_NCCL=1 leaves it out.
  if [ -z "${UDOCC_NO_NCCL:-}" ] && [ -e "$libdir/libtorch_cuda.so" ] &&
    [ -f "$inc/torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp" ]; then
    local nccl=${NCCL_INCLUDE:-} cudainc=${CUDA_INCLUDE:-} c
    [ -z "$nccl" ] && nccl=$(ls -d "$libdir"/../../nvidia/nccl/include 2>/dev/null | head -n 1 || true)
    if [ -z "$cudainc" ]; then
      for c in ${CUDA_HOME:+"$CUDA_HOME/include"} /usr/local/cuda/include /usr/include "$libdir"/../../nvidia/cuda_runtime/include; do
        if [ -f "$c/cuda.h" ] && [ -f "$c/cuda_runtime_api.h" ]; then cudainc=$c; break; fi
      done
    fi
    if [ -n "$nccl" ] && [ -f "$nccl/nccl.h" ] && [ -n "$cudainc" ] && [ -f "$cudainc/cuda.h" ]; then
      CXXFLAGS_T+=(-DUDOCC_NCCL -isystem "$nccl" -isystem "$cudainc")
      log "data-parallel CUDA runs on NCCL (nccl.h from $nccl, cuda.h from $cudainc)"
    else
      log "no nccl.h or no cuda.h (set NCCL_INCLUDE, CUDA_INCLUDE): the shim is built without NCCL"
    fi
  fi
  LDFLAGS_T+=(-Wl,--no-as-needed "${cuda[@]}" -ltorch -ltorch_cpu -lc10 -Wl,--as-needed)
  # (The fast path finds a shared oneDNN's dnnl_sgemm at run time, by name: the shim
  # links no BLAS and defines no BLAS symbol.)
}

build_shim() {
  local lt out=lib/libudocc_torch.so stamp=lib/.shim-stamp key
  lt=$(find_libtorch)
  shim_flags "$lt"
  key=$(cat internal/torch/shim/*.cpp internal/torch/shim/fast/*.cpp internal/torch/shim/*.h build.sh | sha256sum | cut -c1-16)
  key="$key $lt ${CXXFLAGS_T[*]} plain-link=${UDOCC_PLAIN_LINK:-}"
  # The stamp also holds the libraries the built shim resolves to (ldd), so that a change
  # in libtorch's closure relinks it: the shim names many of them itself (order_shim).
  if [ -f "$out" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key $(closure "$out")" ]; then
    return
  fi
  mkdir -p lib
  log "compiling the shim against libtorch: $lt"
  # udocc_fast.cpp (the CPU fast path's loops, no libtorch) is compiled apart with -O3,
  # -fno-trapping-math and -fno-math-errno, which let gcc vectorise its loops over
  # features (LeakyReLU's select, Adam's square root), and -ffp-contract=off, which keeps
  # its AVX-512 clones from fusing a multiply and an add; none of them changes a result.
  # Hidden visibility: the library exports its udocc_ C ABI (udocc_torch.h) and nothing
  # else of its own (a guest in its host's process).
  local obj=lib/.udocc_fast.o vis=(-fvisibility=hidden -fvisibility-inlines-hidden)
  g++ -O3 -fno-trapping-math -fno-math-errno -ffp-contract=off -fPIC -Wall -c -std=c++17 "${vis[@]}" internal/torch/shim/fast/udocc_fast.cpp -o "$obj"
  local objs=() src
  for src in udocc_torch udocc_dist; do
    g++ -O2 -fPIC -Wall -Wno-unused-parameter "${vis[@]}" "${CXXFLAGS_T[@]}" -c "internal/torch/shim/$src.cpp" -o "lib/.$src.o"
    objs+=("lib/.$src.o")
  done
  objs+=("$obj")
  g++ -shared -fPIC "${objs[@]}" -o "$out.tmp" "${LDFLAGS_T[@]}"
  order_shim "${objs[@]}"
  rm -f "${objs[@]}"
  mv "$out.tmp" "$out"
  echo "$key $(closure "$out")" > "$stamp"
}

# closure prints a short hash of the shared libraries $1 resolves to.
closure() { ldd "$1" 2>/dev/null | sed 's/ (0x[0-9a-f]*)$//' | sha256sum | cut -c1-16; }

# order_shim relinks $out.tmp (the plain link of the objects $@) naming the libraries its process
# binds most symbols to as its own DT_NEEDED entries, most first, where that leaves
# every symbol bound where it was: tools/shimlink/linkorder says how and why (about
# 0.1 s off every process's start with Debian's libtorch). Where it cannot, or this is
# not glibc, the plain link stays. UDOCC_PLAIN_LINK=1 skips it.
order_shim() {
  [ -n "${UDOCC_PLAIN_LINK:-}" ] && return
  if ! command -v go >/dev/null || ! command -v gcc >/dev/null; then
    log "the shim keeps its plain link (no go or no gcc to order it)"
    return
  fi
  local dir=lib/.order
  rm -rf "$dir" && mkdir -p "$dir"
  cp "$out.tmp" "$dir/libudocc_torch.so"
  if ! printf 'int main(void) { return 0; }\n' | gcc -x c - -o "$dir/probe" -L"$dir" -Wl,--no-as-needed -ludocc_torch 2>/dev/null ||
    ! env GOFLAGS= go run ./tools/shimlink/linkorder -probe "$dir/probe" -dir "$dir" -- \
      g++ -shared -fPIC "$@" -o "$dir/libudocc_torch.so" "${LDFLAGS_T[@]}" -Wl,--no-as-needed @LIBS@ -Wl,--as-needed; then
    log "the shim keeps its plain link (linkorder could not keep every binding)"
    rm -rf "$dir"
    return
  fi
  mv "$dir/libudocc_torch.so" "$out.tmp"
  rm -rf "$dir"
}

# build_pin compiles lib/udocc_pin_test (internal/torch/shim/pintest), the program that pins the
# shim's Adam and BatchNorm to libtorch's own; internal/torch/pin_test.go runs it. It links the
# shim dynamically, so it tests whichever lib/libudocc_torch.so is built.
build_pin() {
  local lt out=lib/udocc_pin_test stamp=lib/.pin-stamp key
  lt=$(find_libtorch)
  shim_flags "$lt"
  key=$(cat internal/torch/shim/pintest/pin_test.cpp internal/torch/shim/udocc_torch.h build.sh | sha256sum | cut -c1-16)
  key="$key $lt ${CXXFLAGS_T[*]}"
  if [ -f "$out" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ]; then
    return
  fi
  log "compiling the shim's pin test against libtorch: $lt"
  g++ -O1 -Wall "${CXXFLAGS_T[@]}" internal/torch/shim/pintest/pin_test.cpp -o "$out.tmp" \
    -Llib -ludocc_torch -Wl,-rpath,'$ORIGIN' "${LDFLAGS_T[@]}"
  mv "$out.tmp" "$out"
  echo "$key" > "$stamp"
}

# build_inert writes lib/inert (tools/shimlink/inert): empty stand-ins, each with the SONAME
# of a library that Debian's libtorch loads only for OpenCV and FFmpeg and binds nothing
# to, checked to leave every other binding where it was. When the check fails, or this
# libtorch names no such library, there is no lib/inert and bin/udocc loads them all.
build_inert() {
  local stamp=lib/.inert-stamp key
  # Where no Go builds the tool (scripts/cuda-carry.sh's folder on a CUDA machine, which
  # carries bin/udocc already linked), there are no stand-ins to make.
  if ! command -v go >/dev/null || [ ! -d tools/shimlink/inert ]; then
    rm -rf lib/inert "$stamp"
    return
  fi
  key="$(cat lib/.shim-stamp) $(cat tools/shimlink/inert/*.go tools/shimlink/internal/ldbind/*.go | sha256sum | cut -c1-16) ${UDOCC_NO_INERT:-}"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ]; then
    return
  fi
  rm -rf lib/inert
  if [ -n "${UDOCC_NO_INERT:-}" ]; then
    :
  elif ! command -v gcc >/dev/null; then
    log "no gcc: bin/udocc loads every library libtorch names"
  elif ! env GOFLAGS= go run ./tools/shimlink/inert -shim lib/libudocc_torch.so -out lib/inert; then
    log "bin/udocc loads every library libtorch names (the stand-ins did not pass their checks)"
  fi
  echo "$key" > "$stamp"
}

build_go() {
  mkdir -p bin
  # RUNPATH $ORIGIN/../lib: bin/udocc finds lib/libudocc_torch.so from any folder. With
  # lib/inert, a DT_RPATH instead, which libtorch's libraries search too: their OpenCV and
  # FFmpeg names find the stand-ins there first (cmd/udocc's tests link their binary so).
  local rpath='-Wl,-rpath,$ORIGIN/../lib'
  [ -d lib/inert ] && rpath='-Wl,--disable-new-dtags -Wl,-rpath,$ORIGIN/../lib:$ORIGIN/../lib/inert'
  # The tag udocc_dist leaves the checkout's absolute lib/ out of the RUNPATH: bin/ and
  # lib/ move together (./build.sh dist).
  go build -trimpath -tags udocc_shimlib,udocc_dist -ldflags "-extldflags '$rpath'" -o bin/udocc ./cmd/udocc
  # The laboratory beside the product: the paper's grid, the studies, the ODDS download.
  go build -trimpath -tags udocc_shimlib,udocc_dist -ldflags "-extldflags '$rpath'" -o bin/udocc-bench ./bench/cmd/udocc-bench
}

# build_gobuild builds ./cmd/udocc as `go build` (or `go install`) does for a Go user,
# without the tag udocc_shimlib: cgo compiles the shim into the binary from
# internal/torch/shim (a few minutes the first time, cached by Go after), with this
# libtorch's flags in CGO_CXXFLAGS and CGO_LDFLAGS (which Debian's libtorch-dev needs
# none of). It checks that path, then throws the binary away.
build_gobuild() {
  local lt
  lt=$(find_libtorch)
  shim_flags "$lt"
  log "go build ./cmd/udocc as a Go user builds it (the shim compiled by cgo)"
  if [ "$lt" = system ]; then
    env GOFLAGS= go build -o /dev/null ./cmd/udocc
  else
    env GOFLAGS= CGO_CXXFLAGS="-O2 ${CXXFLAGS_T[*]}" CGO_LDFLAGS="${LDFLAGS_T[*]}" go build -o /dev/null ./cmd/udocc
  fi
}

# Every Go command here builds programs that load lib/libudocc_torch.so as they start (the
# build tag udocc_shimlib, see internal/torch/link_shimlib.go and lazy_shimlib.c), and so do
# the go commands the tests start.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-tags=udocc_shimlib"
# install_chromium installs Debian's chromium, which the test of udocc review --web drives
# headless (cmd/udocc: TestReviewWeb), when none is on PATH and this runs as root on
# Debian; elsewhere that test skips, saying so.
install_chromium() {
  command -v chromium >/dev/null || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null && return
  if [ "$(id -u)" = 0 ] && [ -f /etc/debian_version ]; then
    log "installing chromium with apt (headless, for the test of udocc review --web)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2
    apt-get install -y -q --no-install-recommends chromium >&2
  else
    log "no chromium: the test of udocc review --web skips"
  fi
}

# build_dist packs bin/udocc and the libraries it loads (lib/libudocc_torch.so,
# lib/inert) with LICENSE and README.md into dist/udocc-VERSION-linux-ARCH.tar.gz. The
# binary finds lib/ beside bin/ only ($ORIGIN/../lib), so the folder runs from anywhere on
# a machine with the same libtorch.
build_dist() {
  local version arch name stage
  version=$(bin/udocc version | sed -n 's/^udocc //p')
  arch=$(uname -m)
  name="udocc-$version-linux-$arch"
  stage=$(mktemp -d)
  mkdir -p dist
  copy_runtime "$stage/$name"
  cp LICENSE README.md "$stage/$name/"
  tar -C "$stage" -czf "dist/$name.tar.gz" "$name"
  rm -rf "$stage"
  DIST="dist/$name.tar.gz"
  log "$DIST: bin/udocc and lib/ (keep them together; libtorch stays where the build found it)"
}

# check_dist unpacks the tarball into a new folder, away from the checkout, and runs
# udocc version and a small udocc demo from there.
check_dist() {
  local tmp dir
  tmp=$(mktemp -d)
  tar -C "$tmp" -xzf "$DIST"
  dir=$(ls -d "$tmp"/udocc-*)
  (cd "$tmp" && "$dir/bin/udocc" version >/dev/null && "$dir/bin/udocc" demo --rows 200 --columns 3 --pretrain-epochs 2 --screen-epochs 2 --epochs 2 --out "$tmp/demo" --quiet >/dev/null) ||
    { log "the unpacked tarball does not run from $tmp"; exit 1; }
  rm -rf "$tmp"
  log "the tarball runs from a fresh folder"
}

# copy_runtime puts bin/udocc and the libraries it loads under $1 ($1/bin, $1/lib),
# where bin/udocc finds them.
copy_runtime() {
  mkdir -p "$1/bin" "$1/lib"
  install -m 0755 bin/udocc "$1/bin/udocc"
  install -m 0644 lib/libudocc_torch.so "$1/lib/libudocc_torch.so"
  if [ -d lib/inert ]; then cp -r lib/inert "$1/lib/"; fi
}

# install_to installs the built bin/udocc and its libraries under PREFIX (PREFIX/bin,
# PREFIX/lib), where bin/udocc finds them.
install_to() {
  local prefix=$1
  [ -n "$prefix" ] || { log "usage: ./build.sh install PREFIX"; exit 2; }
  copy_runtime "$prefix"
  log "installed $prefix/bin/udocc and $prefix/lib"
}

case "${1:-build}" in
  build) build_shim; build_inert; build_go ;;
  dist) build_shim; build_inert; build_go; build_dist; check_dist ;;
  install) build_shim; build_inert; build_go; install_to "${2:-}" ;;
  shim) build_shim; build_inert ;;
  flags)
    lt=$(find_libtorch)
    shim_flags "$lt"
    printf 'libtorch: %s\ncompile: %s\nlink: %s\n' "$lt" "${CXXFLAGS_T[*]}" "${LDFLAGS_T[*]}"
    ;;
  test)
    build_shim
    build_inert
    build_pin
    build_go
    build_dist
    check_dist
    install_chromium
    go vet ./...
    # The CUDA tests and benchmarks run only on a GPU machine (docs/cuda.md), but they
    # compile everywhere: vetting them here keeps them in step with the code they test.
    go vet -tags cuda,udocc_shimlib ./...
    UDOCC_PIN_TEST=$root/lib/udocc_pin_test go test -count=1 -timeout 20m ./...
    # The numerically sensitive packages once more with oneDNN held to AVX2 (an AMD EPYC,
    # no AVX-512), whose sgemm kernels round differently for different shapes of work: a
    # row's score must not depend on the rows scored with it on any CPU.
    DNNL_MAX_CPU_ISA=AVX2 UDOCC_PIN_TEST=$root/lib/udocc_pin_test go test -count=1 -timeout 20m . ./internal/detector ./internal/torch ./internal/training ./internal/models
    # The library's concurrent use (Score, Explain, Save, Close and the HTTP handler from
    # many goroutines) and the packages it leans on, under the race detector.
    UDOCC_PIN_TEST=$root/lib/udocc_pin_test go test -race -count=1 -timeout 20m . ./internal/detector ./serve ./internal/outdir ./internal/regfile ./internal/rowbody ./internal/count ./internal/models
    # The Go user's path (go get, go install): the shim compiled by cgo, no lib/.
    build_gobuild
    ;;
  gobuild) build_gobuild ;;
  *) log "unknown command $1 (use: build, test, dist, install PREFIX, shim, flags)"; exit 2 ;;
esac
