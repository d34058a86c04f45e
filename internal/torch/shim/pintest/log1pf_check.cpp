// log1pf_check compares udocc::log1pf_nonneg (udocc_log1pf.h) with the C library's log1pf
// on every STRIDE-th non-negative float (and +inf, NaN), with the loop compiled for the
// baseline x86-64 and, where the CPU has them, for AVX2 and AVX-512 (as udocc_fast.cpp's
// target_clones), and prints the mismatches of each. Stride 1 is all 2^31 of them (a
// minute). Without -ffp-contract=off the AVX-512 loop fuses multiplies and adds, and differs.
//
//   g++ -O3 -fno-trapping-math -fno-math-errno -ffp-contract=off -std=c++17 log1pf_check.cpp -o check && ./check 1
//
// internal/torch's TestLog1pf builds and runs it.
#include <gnu/libc-version.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../udocc_log1pf.h"

namespace {

__attribute__((noinline)) void port(const float *in, float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = udocc::log1pf_nonneg(in[i]);
}

#if defined(__x86_64__)
__attribute__((noinline, target("avx2"))) void port_avx2(const float *in, float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = udocc::log1pf_nonneg(in[i]);
}
__attribute__((noinline, target("avx512f"))) void port_avx512(const float *in, float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = udocc::log1pf_nonneg(in[i]);
}
#endif

bool same(float a, float b) {
  return udocc::float_bits(a) == udocc::float_bits(b) || (std::isnan(a) && std::isnan(b));
}

}  // namespace

int main(int argc, char **argv) {
  const int64_t stride = argc > 1 ? std::atoll(argv[1]) : 1;
  bool avx2 = false, avx512 = false;
#if defined(__x86_64__)
  avx2 = __builtin_cpu_supports("avx2");
  avx512 = __builtin_cpu_supports("avx512f");
#endif
  const int64_t block = 1 << 16;
  std::vector<float> in, want(block), got(block), got2(block), got5(block);
  in.reserve(block);
  int64_t n = 0, bad = 0, bad2 = 0, bad5 = 0;
  auto flush = [&] {
    const int64_t m = static_cast<int64_t>(in.size());
    for (int64_t i = 0; i < m; ++i) want[i] = log1pf(in[i]);
    port(in.data(), got.data(), m);
#if defined(__x86_64__)
    if (avx2) port_avx2(in.data(), got2.data(), m);
    if (avx512) port_avx512(in.data(), got5.data(), m);
#endif
    for (int64_t i = 0; i < m; ++i) {
      if (!same(want[i], got[i])) {
        if (bad++ < 5) std::printf("baseline: log1pf(%a) = %a, port %a\n", in[i], want[i], got[i]);
      }
      if (avx2 && !same(want[i], got2[i])) {
        if (bad2++ < 5) std::printf("avx2: log1pf(%a) = %a, port %a\n", in[i], want[i], got2[i]);
      }
      if (avx512 && !same(want[i], got5[i])) {
        if (bad5++ < 5) std::printf("avx512: log1pf(%a) = %a, port %a\n", in[i], want[i], got5[i]);
      }
    }
    n += m;
    in.clear();
  };
  for (int64_t b = 0; b <= 0x7fc00000; b += stride) {  // 0 to the quiet NaN, +inf among them
    in.push_back(udocc::bits_float(static_cast<int32_t>(b)));
    if (static_cast<int64_t>(in.size()) == block) flush();
  }
  for (int32_t b : {0x7f800000, 0x7f7fffff, 0x3ed413d6, 0x3ed413d7, 0x5a000000, 0x59ffffff, 0x31000000,
                    0x30ffffff, 0x24800000, 0x247fffff, 0x3f800000})
    in.push_back(udocc::bits_float(b));  // each branch's edges
  flush();
  std::printf("glibc %s: %lld values; mismatches: baseline %lld, avx2 %s%lld, avx512 %s%lld\n",
              gnu_get_libc_version(), static_cast<long long>(n), static_cast<long long>(bad),
              avx2 ? "" : "(not on this CPU) ", static_cast<long long>(bad2),
              avx512 ? "" : "(not on this CPU) ", static_cast<long long>(bad5));
  return bad + bad2 + bad5 > 0 ? 1 : 0;
}
