// udocc_log1pf.h: log1p of a non-negative float, the same bits on every CPU and C library.
// The fast path's robust reconstruction error (udocc_fast.cpp) sums log1p(z²) over a row's
// features; glibc's log1pf is a scalar call (17 % of a default fit's CPU on ALOI), and
// this one vectorises.
#pragma once

#include <cstdint>
#include <cstring>

namespace udocc {

inline int32_t float_bits(float f) {
  int32_t i;
  std::memcpy(&i, &f, sizeof i);
  return i;
}

inline float bits_float(int32_t i) {
  float f;
  std::memcpy(&f, &i, sizeof f);
  return f;
}

// log1pf_nonneg is fdlibm's log1pf (glibc's sysdeps/ieee754/flt-32/s_log1pf.c, which
// is glibc 2.36's log1pf) for x >= 0, +inf and NaN, written without branches so that a
// loop over it vectorises: every path is computed and the right one selected. It returns
// glibc 2.36's log1pf bit for bit on all 2^31 such floats, baseline x86-64 and AVX2 alike
// (pintest/log1pf_check.cpp; internal/torch's TestLog1pf runs it on a sample), so the
// scores are those std::log1p gave with that C library, now on any.
inline float log1pf_nonneg(float x) {
  const float ln2_hi = 6.9313812256e-01f, ln2_lo = 9.0580006145e-06f;
  const float Lp1 = 6.6666668653e-01f, Lp2 = 4.0000000596e-01f, Lp3 = 2.8571429849e-01f,
              Lp4 = 2.2222198546e-01f, Lp5 = 1.8183572590e-01f, Lp6 = 1.5313838422e-01f,
              Lp7 = 1.4798198640e-01f;
  const int32_t hx = float_bits(x);
  // x >= 0.41422: 1 + x = 2^k (1 + f), with c the rounding's correction of 1 + x.
  const bool big = hx >= 0x5a000000;  // x >= 2^53: 1 + x is x
  const float u = big ? x : 1.0f + x;
  int32_t hu = float_bits(u);
  int32_t k = (hu >> 23) - 127;
  float c = big ? 0.0f : ((k > 0) ? 1.0f - (u - x) : x - (u - 1.0f)) / u;
  hu &= 0x007fffff;
  const bool low = hu < 0x3504f7;  // normalise u, or u/2 where its mantissa passes sqrt(2)
  const float un = bits_float(low ? (hu | 0x3f800000) : (hu | 0x3f000000));
  k = low ? k : k + 1;
  hu = low ? hu : (0x00800000 - hu) >> 2;
  float f = un - 1.0f;
  // x < 0.41422: k = 0 and f = x.
  const bool small = hx < 0x3ed413d7;
  k = small ? 0 : k;
  f = small ? x : f;
  hu = small ? 1 : hu;
  c = small ? 0.0f : c;
  const float hfsq = 0.5f * f * f, kf = static_cast<float>(k);
  // |f| < 2^-20 (hu 0): two terms of the series.
  const float R0 = hfsq * (1.0f - 0.66666666666666666f * f);
  const float tiny_f = (k == 0) ? 0.0f : kf * ln2_hi + (c + kf * ln2_lo);
  const float short_f = (k == 0) ? f - R0 : kf * ln2_hi - ((R0 - (kf * ln2_lo + c)) - f);
  // Otherwise log(1 + f) = 2s + s·R(s²) with s = f/(2 + f).
  const float s = f / (2.0f + f), z = s * s;
  const float R = z * (Lp1 + z * (Lp2 + z * (Lp3 + z * (Lp4 + z * (Lp5 + z * (Lp6 + z * Lp7))))));
  const float full = (k == 0) ? f - (hfsq - s * (hfsq + R))
                              : kf * ln2_hi - ((hfsq - (s * (hfsq + R) + (kf * ln2_lo + c))) - f);
  float r = (hu == 0) ? (f == 0.0f ? tiny_f : short_f) : full;
  r = (hx < 0x31000000) ? ((hx < 0x24800000) ? x : x - x * x * 0.5f) : r;  // x < 2^-29
  return (hx >= 0x7f800000) ? x + x : r;                                      // +inf, NaN
}

}  // namespace udocc
