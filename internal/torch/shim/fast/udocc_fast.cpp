// udocc_fast.cpp: the CPU fast path (see ../udocc_fast.h). It lives in a folder of its own,
// package fast, so that go build compiles it with the flags of fast.go (-O3 and friends).
//
// Backward of a BatchNorm layer over its c valid rows, with y = (h - mean) s and
// s = 1/sqrt(var + eps): dh_i = s (dy_i - (sum_j dy_j + y_i sum_j dy_j y_j) / c). Rows
// after c (passengers, padding) receive no loss gradient, and BatchNorm's cross-row
// terms only reach valid rows, so their gradient is zero all the way down: backward
// works on the first c rows only. The forward products run over all P rows, as the
// libtorch path does, so a row's numbers do not depend on how many passengers ride along.
#include "../udocc_fast.h"
#include "../udocc_log1pf.h"

// -fno-trapping-math and -fno-math-errno let gcc vectorise the loops over features
// (LeakyReLU's select, Adam's square root); neither changes a result. -ffp-contract=off
// keeps a*b + c two roundings where a clone's ISA has fused multiply-add (AVX-512), so
// that every clone rounds as the baseline does. They are set here, not only on build.sh's
// command line, because go build (package fast) accepts none of them as a #cgo flag.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math", "no-math-errno", "fp-contract=off")
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

// SIMD marks the loops over features that gcc builds three times, for AVX-512, AVX2 and
// plain x86-64, picking one when the library loads (the loops are too short to amortise
// anything cleverer). Each loop's operations are elementwise IEEE ones (no reduction is
// reordered: that would take -fassociative-math), and with fp-contract off none is fused,
// so every version rounds alike.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SIMD __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SIMD
#endif

namespace udocc {
namespace fast {

namespace {

constexpr float kBeta1 = 0.9f, kBeta2 = 0.999f, kAdamEps = 1e-8f;  // torch.optim.Adam defaults

int64_t widest(const Net &net) {
  int64_t w = 1;
  for (const Layer &l : net) w = std::max({w, l.in, l.out});
  return w;
}

// leaky is LeakyReLU without a branch (the sign of y is a coin toss, and a mispredicted
// branch per element cost more than the arithmetic): exactly y or kLeaky * y.
inline float leaky(float y) { return std::max(y, 0.0f) + kLeaky * std::min(y, 0.0f); }

// leaky_slope is LeakyReLU's derivative at y, as PyTorch takes it (1 where y > 0).
inline float leaky_slope(float y) { return y > 0 ? 1.0f : kLeaky; }

// standardise turns len values of v (whole rows, in place) into standardised ones with
// set_data_scaled's expression (double arithmetic, a division, one rounding to float):
// vectorised, it rounds alike, since IEEE division and the conversions are exact-rounded.
// mean and scale hold kPeriod rows' worth (Table), so that the loop runs over the values
// of kPeriod rows at a time in whole vectors, whatever d is: a loop over one row's d
// values spent much of its time in the remainder past the last whole vector.
SIMD void standardise(float *v, int64_t len, const double *__restrict mean,
                      const double *__restrict scale, int64_t period) {
  for (int64_t at = 0; at < len; at += period) {
    float *vb = v + at;
    const int64_t m = std::min(period, len - at);
    for (int64_t j = 0; j < m; ++j) vb[j] = static_cast<float>((static_cast<double>(vb[j]) - mean[j]) / scale[j]);
  }
}

// raw copies x's row of table row i (i < n) into out, unstandardised.
inline void raw(const Table &t, int64_t i, float *out) {
  const int64_t r = t.rows == nullptr ? i : static_cast<int64_t>(t.rows[i]);
  std::memcpy(out, t.x + r * t.d, sizeof(float) * t.d);
}

// gather reads the P rows of step (k, s) into x (P x d); padding slots hold row n. The
// rows are copied raw, then standardised together in place.
void gather(const Epoch &e, int64_t k, int64_t s, float *x) {
  const int32_t *rows = e.rows + (k * e.S + s) * e.P;
  const Table &t = e.X;
  const int64_t d = e.d;
  for (int64_t j = 0; j < e.P; ++j) {
    if (rows[j] < t.n) raw(t, rows[j], x + j * d);
  }
  if (t.mean != nullptr) standardise(x, e.P * d, t.mean, t.scale, kPeriod * d);
  for (int64_t j = 0; j < e.P; ++j) {  // after standardising, which would move zeros
    if (rows[j] >= t.n) std::fill(x + j * d, x + (j + 1) * d, 0.0f);
  }
}

// ChunkBuf is one eval-mode chunk of a table's rows, 64-byte aligned as a tensor's data
// is, so that the products see a chunk read from a table as they saw it in a copy.
class ChunkBuf {
 public:
  explicit ChunkBuf(int64_t d) : buf_(kEvalRows * d + 16) {
    void *p = buf_.data();
    size_t space = buf_.size() * sizeof(float);
    p_ = static_cast<float *>(std::align(64, kEvalRows * d * sizeof(float), p, space));
  }
  float *data() { return p_; }

 private:
  std::vector<float> buf_;
  float *p_;
};

// each_chunk calls f(i, len, rows) for the table's rows i .. i+len in the eval-mode
// chunks: a plain table in place, as one matrix, whose functions cut it into the same
// chunks; any other read into a buffer a chunk at a time.
template <class F>
void each_chunk(const Table &t, F f) {
  if (t.plain()) {
    f(0, t.n, t.x);
    return;
  }
  ChunkBuf buf(t.d);
  for (int64_t i = 0; i < t.n; i += kEvalRows) {
    const int64_t len = std::min(kEvalRows, t.n - i);
    t.read(i, len, buf.data());
    f(i, len, buf.data());
  }
}

// normalize turns h (rows x out, in place) into y = (h - mean) s and writes
// a = LeakyReLU(y). With h == a (eval mode) only a is written.
SIMD void normalize(float *h, float *a, const float *__restrict mean, const float *__restrict s,
               int64_t rows, int64_t out) {
  if (h == a) {
    for (int64_t i = 0; i < rows * out; i += out) {
      float *__restrict ai = a + i;
      for (int64_t j = 0; j < out; ++j) ai[j] = leaky((ai[j] - mean[j]) * s[j]);
    }
    return;
  }
  for (int64_t i = 0; i < rows * out; i += out) {
    float *__restrict hi = h + i;
    float *__restrict ai = a + i;
    for (int64_t j = 0; j < out; ++j) {
      float y = (hi[j] - mean[j]) * s[j];
      hi[j] = y;
      ai[j] = leaky(y);
    }
  }
}

// batch_stats writes the mean of the first c rows of h and the sums of squared
// deviations from it, per feature.
SIMD void batch_stats(const float *__restrict h, int64_t c, int64_t out, float cnt,
                      float *__restrict mean, float *__restrict sq) {
  std::fill(mean, mean + out, 0.0f);
  std::fill(sq, sq + out, 0.0f);
  for (int64_t i = 0; i < c; ++i) {
    const float *__restrict hi = h + i * out;
    for (int64_t j = 0; j < out; ++j) mean[j] += hi[j];
  }
  for (int64_t j = 0; j < out; ++j) mean[j] /= cnt;
  for (int64_t i = 0; i < c; ++i) {
    const float *__restrict hi = h + i * out;
    for (int64_t j = 0; j < out; ++j) {
      float dv = hi[j] - mean[j];
      sq[j] += dv * dv;
    }
  }
}

// bn_backward takes g, the gradient of LeakyReLU(y) over c rows (overwritten with that of
// y), and writes the gradient of the BatchNorm input h into dh (see the file comment).
SIMD void bn_backward(float *__restrict g, const float *__restrict y, const float *__restrict s,
                 float *__restrict sum1, float *__restrict sum2, float *__restrict dh, int64_t c,
                 int64_t out, float cnt) {
  for (int64_t i = 0; i < c; ++i) {
    float *__restrict gi = g + i * out;
    const float *__restrict yi = y + i * out;
    for (int64_t j = 0; j < out; ++j) {
      float dy = gi[j] * leaky_slope(yi[j]);
      gi[j] = dy;
      sum1[j] += dy;
      sum2[j] += dy * yi[j];
    }
  }
  for (int64_t i = 0; i < c; ++i) {
    const float *__restrict gi = g + i * out;
    const float *__restrict yi = y + i * out;
    float *__restrict di = dh + i * out;
    for (int64_t j = 0; j < out; ++j) di[j] = s[j] * (gi[j] - (sum1[j] + yi[j] * sum2[j]) / cnt);
  }
}

// mse_grad returns the sum of squared errors of the reconstruction xr of the c rows of x
// (c x d) and writes its gradient divided by denom into g. The sum runs per feature
// first (in acc), which vectorises where one running sum could not.
SIMD float mse_grad(const float *__restrict x, const float *__restrict xr, float *__restrict g,
                    float *__restrict acc, int64_t c, int64_t d, float denom) {
  std::fill(acc, acc + d, 0.0f);
  for (int64_t i = 0; i < c * d; i += d) {
    for (int64_t j = 0; j < d; ++j) {
      float diff = xr[i + j] - x[i + j];
      acc[j] += diff * diff;
      g[i + j] = 2 * diff / denom;
    }
  }
  float se = 0;
  for (int64_t j = 0; j < d; ++j) se += acc[j];
  return se;
}

}  // namespace

void Table::row(int64_t i, float *out) const { read(i, 1, out); }

void Table::read(int64_t i, int64_t m, float *out) const {
  const int64_t have = std::max<int64_t>(0, std::min(m, n - i));  // rows before the padding
  if (rows == nullptr) {
    std::memcpy(out, x + i * d, sizeof(float) * have * d);
  } else {
    for (int64_t r = 0; r < have; ++r) raw(*this, i + r, out + r * d);
  }
  if (mean != nullptr) standardise(out, have * d, mean, scale, kPeriod * d);
  std::fill(out + have * d, out + m * d, 0.0f);
}

Work::Work(const Net &net, int64_t P) : P_(P) {
  const size_t L = net.size();
  act_.resize(L + 1);
  y_.resize(L);
  s_.resize(L);
  act_[0].resize(P * net[0].in);
  for (size_t l = 0; l < L; ++l) {
    act_[l + 1].resize(P * net[l].out);
    if (net[l].bn()) {
      y_[l].resize(P * net[l].out);
      s_[l].resize(3 * net[l].out);  // s, then room for the mean and the sums of backward
    }
  }
  const int64_t w = widest(net);
  dout_.resize(P * net.back().out);
  da_.resize(P * w);
  dh_.resize(P * w);
}

void Work::forward_train(const Net &net, int64_t c, bool update) {
  const float cnt = static_cast<float>(std::max<int64_t>(c, 1));
  for (size_t l = 0; l < net.size(); ++l) {
    const Layer &ly = net[l];
    const int64_t out = ly.out;
    float *h = ly.bn() ? y_[l].data() : act_[l + 1].data();
    gemm(false, false, P_, out, ly.in, act_[l].data(), ly.in, ly.w, out, h, out);
    if (!ly.bn()) continue;
    float *s = s_[l].data(), *mean = s + out;
    batch_stats(h, c, out, cnt, mean, s);
    for (int64_t j = 0; j < out; ++j) {
      float var = s[j] / cnt;
      if (update && c > 1) {
        float unbiased = var * cnt / (cnt - 1);
        ly.rm[j] += kBNMomentum * (mean[j] - ly.rm[j]);
        ly.rv[j] += kBNMomentum * (unbiased - ly.rv[j]);
      }
      s[j] = 1.0f / std::sqrt(var + kBNEps);
    }
    normalize(h, act_[l + 1].data(), mean, s, P_, out);
  }
}

void Work::backward(const Net &net, int64_t c) {
  const float cnt = static_cast<float>(c);
  float *cur = dout_.data();  // gradient of the current layer's output, c rows
  for (size_t l = net.size(); l-- > 0;) {
    const Layer &ly = net[l];
    const int64_t in = ly.in, out = ly.out;
    float *dh = cur;
    if (ly.bn()) {
      dh = cur == dh_.data() ? da_.data() : dh_.data();
      const float *y = y_[l].data(), *s = s_[l].data();
      float *sum1 = s_[l].data() + out, *sum2 = sum1 + out;  // the mean is no longer needed
      std::fill(sum1, sum1 + 2 * out, 0.0f);
      bn_backward(cur, y, s, sum1, sum2, dh, c, out, cnt);
    }
    if (ly.gw != nullptr) gemm(true, false, in, out, c, act_[l].data(), in, dh, out, ly.gw, out);
    if (l == 0) break;
    float *da = dh == da_.data() ? dh_.data() : da_.data();
    gemm(false, true, c, in, out, dh, out, ly.w, out, da, in);
    cur = da;
  }
}

void forward_eval(const Net &net, const float *x, int64_t m, float *out, std::vector<float> &buf) {
  const int64_t w = widest(net), in = net[0].in, rep = net.back().out;
  buf.resize(3 * kEvalRows * w + 2 * w);
  float *ping = buf.data(), *pong = ping + kEvalRows * w, *pad = pong + kEvalRows * w, *scale = pad + kEvalRows * w;
  for (int64_t i = 0; i < m; i += kEvalRows) {
    const int64_t len = std::min(kEvalRows, m - i);
    const float *cur = x + i * in;
    if (len < kEvalRows) {  // the last block, made whole with zero rows (kEvalRows)
      std::memcpy(pad, cur, sizeof(float) * len * in);
      std::fill(pad + len * in, pad + kEvalRows * in, 0.0f);
      cur = pad;
    }
    for (size_t l = 0; l < net.size(); ++l) {
      const Layer &ly = net[l];
      const int64_t o = ly.out;
      float *next = l + 1 == net.size() && len == kEvalRows ? out + i * o : (cur == ping ? pong : ping);
      gemm(false, false, kEvalRows, o, ly.in, cur, ly.in, ly.w, o, next, o);
      if (ly.bn()) {
        for (int64_t j = 0; j < o; ++j) scale[j] = 1.0f / std::sqrt(ly.rv[j] + kBNEps);
        normalize(next, next, ly.rm, scale, kEvalRows, o);
      }
      cur = next;
    }
    if (len < kEvalRows) std::memcpy(out + i * rep, cur, sizeof(float) * len * rep);
  }
}

namespace {

SIMD void adam_member(float *__restrict w, const float *__restrict grad, float *__restrict m,
                 float *__restrict v, int64_t len, const AdamMember &a) {
  const float wd = a.wd, bc2s = a.bc2s, step = a.step;
  for (int64_t i = 0; i < len; ++i) {
    float g = grad[i] + wd * w[i];
    m[i] = m[i] * kBeta1 + (1 - kBeta1) * g;
    v[i] = v[i] * kBeta2 + (1 - kBeta2) * (g * g);
    float denom = std::sqrt(v[i]) / bc2s + kAdamEps;
    w[i] -= m[i] / denom * step;
  }
}

}  // namespace

void adam(float *w, float *grad, float *m, float *v, const std::vector<int64_t> &lens, int64_t K,
          int64_t k, const AdamMember &a) {
  int64_t off = 0;
  for (int64_t len : lens) {
    const int64_t per = len / K, at = off + k * per;
    float *wk = w + at, *gk = grad + at, *mk = m + at, *vk = v + at;
    if (a.on) adam_member(wk, gk, mk, vk, per, a);
    std::fill(gk, gk + per, 0.0f);
    off += len;
  }
}

namespace {

// Chain is one member's state through an epoch: its step's buffers and its running loss,
// which parallel_chains hands from thread to thread.
struct Chain {
  Chain(const Net &net, int64_t P, int64_t d) : w(net, P), a(d), b(P) {}
  Work w;
  std::vector<float> a, b;  // pretraining: a the column sums of mse_grad; fine-tuning: a, b distances and roots
  float sum = 0, nb = 0;    // the loss of the minibatches so far, and their number
};

// chain is member k's Chain, made on its first piece.
Chain &chain(std::vector<std::unique_ptr<Chain>> &chains, const std::vector<Net> &nets, int64_t k,
             int64_t P, int64_t d) {
  if (!chains[k]) chains[k] = std::make_unique<Chain>(nets[k], P, d);
  return *chains[k];
}

// lengths is each member's work in steps for parallel_chains: 1 + its last step that
// works (Epoch::works).
std::vector<int64_t> lengths(const Epoch &e, bool riders) {
  std::vector<int64_t> len(e.K, 0);
  for (int64_t k = 0; k < e.K; ++k) {
    for (int64_t s = e.S - 1; s >= 0; --s) {
      if (e.works(k, s, riders)) {
        len[k] = s + 1;
        break;
      }
    }
  }
  return len;
}

// train_step is member k's fine-tuning step s, the minibatch gathered into c.w.a(0).
void train_step(const Net &net, const Epoch &e, const Objective &o, StepFn step, void *ctx,
                float *train_dist, int64_t k, int64_t s, Chain &ch);

}  // namespace

void pretrain_epoch(const std::vector<Net> &nets, const Epoch &e, StepFn step, void *ctx,
                    double *loss) {
  const int64_t d = e.d;
  std::vector<std::unique_ptr<Chain>> chains(e.K);
  parallel_chains(lengths(e, false), e.S, [&](int64_t k, int64_t lo, int64_t hi) {
    Chain &ch = chain(chains, nets, k, e.P, d);
    Work &w = ch.w;
    float *acc = ch.a.data(), sum = ch.sum, nb = ch.nb;
    for (int64_t s = lo; s < hi; ++s) {
      if (!e.trains(k, s)) continue;
      const int64_t c = e.counts[k * e.S + s];
      const float denom = static_cast<float>(c) * static_cast<float>(d);
      gather(e, k, s, w.a(0));
      w.forward_train(nets[k], c, true);
      const float se = mse_grad(w.a(0), w.out(), w.dout(), acc, c, d, denom);
      w.backward(nets[k], c);
      sum += se / denom;
      nb += 1;
      step(ctx, k, s);
    }
    ch.sum = sum;
    ch.nb = nb;
  });
  for (int64_t k = 0; k < e.K; ++k) {
    loss[k] = chains[k] ? chains[k]->sum / std::max(chains[k]->nb, 1.0f) : 0.0f;
  }
}

void train_epoch(const std::vector<Net> &nets, const Epoch &e, const Objective &o, StepFn step,
                 void *ctx, double *loss, float *train_dist) {
  std::vector<std::unique_ptr<Chain>> chains(e.K);
  parallel_chains(lengths(e, train_dist != nullptr), e.S, [&](int64_t k, int64_t lo, int64_t hi) {
    Chain &ch = chain(chains, nets, k, e.P, e.P);
    for (int64_t s = lo; s < hi; ++s) {
      if (e.works(k, s, train_dist != nullptr)) train_step(nets[k], e, o, step, ctx, train_dist, k, s, ch);
    }
  });
  for (int64_t k = 0; k < e.K; ++k) {
    loss[k] = chains[k] ? chains[k]->sum / std::max(chains[k]->nb, 1.0f) : 0.0f;
  }
}

namespace {

void train_step(const Net &net, const Epoch &e, const Objective &o, StepFn step, void *ctx,
                float *train_dist, int64_t k, int64_t s, Chain &ch) {
  const int64_t rep = o.rep, at = k * e.S + s;
  const int64_t c = e.counts[at], rode = e.rode(k, s);
  const bool trains = e.trains(k, s);
  Work &w = ch.w;
  float *dist = ch.a.data(), *root = ch.b.data();
  gather(e, k, s, w.a(0));
  w.forward_train(net, c, trains);
  const float *z = w.out(), *ck = o.c + k * rep;
  for (int64_t i = 0; i < rode; ++i) {
    float d2 = 0;
    for (int64_t j = 0; j < rep; ++j) {
      float diff = z[i * rep + j] - ck[j];
      d2 += diff * diff;
    }
    dist[i] = d2;
  }
  const int32_t *rows = e.rows + at * e.P;
  if (train_dist != nullptr) {
    for (int64_t i = 0; i < rode; ++i) train_dist[k * e.n + rows[i]] = dist[i];
  }
  if (!trains) return;
  const float cnt = static_cast<float>(c);
  const bool soft = o.soft[k] != 0;
  const float r2 = o.R[k] * o.R[k];
  const float inv_nu = soft ? 1.0f / std::max(static_cast<float>(o.nu[k]), 1e-12f) : 0.0f;
  float total = 0;
  float *g = w.dout();
  for (int64_t i = 0; i < c; ++i) {
    // Eq. (2), or in Ruff's scaling Eq. (1) / nu: the hinge's gradient where it is open.
    float coef = 1.0f / cnt;
    if (soft) {
      const float over = dist[i] - r2;
      total += over > 0 ? over : 0.0f;
      coef = over > 0 ? inv_nu / cnt : 0.0f;
    } else if (o.label != nullptr && o.label[rows[i]] != 0) {
      // Deep SAD: d(eta·d)/dd = eta; d(eta/(d+eps))/dd = -eta/(d+eps)^2.
      if (o.label[rows[i]] > 0) {
        total += o.eta * dist[i];
        coef = o.eta / cnt;
      } else {
        const float q = dist[i] + kSadEps;
        total += o.eta / q;
        coef = -o.eta / (q * q * cnt);
      }
    } else {
      total += dist[i];
    }
    for (int64_t j = 0; j < rep; ++j) g[i * rep + j] = 2 * (z[i * rep + j] - ck[j]) * coef;
  }
  const float per = soft ? r2 + inv_nu * (total / cnt) : total / cnt;
  w.backward(net, c);
  ch.sum += per;
  ch.nb += 1;
  if (o.update_r[k] != 0) {
    // numpy's linear quantile 1 - nu of the minibatch's distances (Ruff's get_radius)
    for (int64_t i = 0; i < c; ++i) root[i] = std::sqrt(dist[i]);
    std::sort(root, root + c);
    const float last = cnt - 1;
    const float pos = (1.0f - static_cast<float>(o.nu[k])) * last;
    const float lo = std::floor(pos), hi = std::min(lo + 1, last);
    const float vlo = root[static_cast<int64_t>(lo)], vhi = root[static_cast<int64_t>(hi)];
    o.R[k] = vlo + (pos - lo) * (vhi - vlo);
  }
  step(ctx, k, s);
}

}  // namespace

void distances(const Net &net, const float *c, const float *x, int64_t m, float *out) {
  const int64_t rep = net.back().out, in = net[0].in;
  thread_local std::vector<float> buf, z;
  z.resize(kEvalRows * rep);
  for (int64_t i = 0; i < m; i += kEvalRows) {
    const int64_t len = std::min(kEvalRows, m - i);
    forward_eval(net, x + i * in, len, z.data(), buf);
    for (int64_t r = 0; r < len; ++r) {
      float d2 = 0;
      for (int64_t j = 0; j < rep; ++j) {
        float diff = z[r * rep + j] - c[j];
        d2 += diff * diff;
      }
      out[i + r] = d2;
    }
  }
}

// log1p_nonneg_inplace sets v[i] to log1p(v[i]) for n values v[i] >= 0. On x86-64 it is compiled
// as every SIMD loop is, and the loader picks the version the CPU runs; all compute
// udocc::log1pf_nonneg with the same IEEE operations (no fused multiply-add), so they agree
// bit for bit (pintest/log1pf_check.cpp). AVX-512 runs it about 2.3 times as fast as AVX2.
SIMD static void log1p_nonneg_inplace(float *v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) v[i] = udocc::log1pf_nonneg(v[i]);
}

// scaled_squares sets e[r·d + j] to z², z = (x[r·d + j] − e[r·d + j] − center[j]) / scale[j],
// for the rows r < len: a row's reconstruction x − e, centred and scaled per feature.
SIMD static void scaled_squares(float *e, const float *x, const float *__restrict center,
                                const float *__restrict scale, int64_t len, int64_t d) {
  for (int64_t r = 0; r < len * d; r += d) {
    float *__restrict er = e + r;
    const float *__restrict xr = x + r;
    for (int64_t j = 0; j < d; ++j) {
      const float z = (xr[j] - er[j] - center[j]) / scale[j];
      er[j] = z * z;
    }
  }
}

void reconstruction(const Net &net, const float *x, int64_t m, float *out, const float *center,
                    const float *scale) {
  const int64_t d = net[0].in;
  thread_local std::vector<float> buf, xr;
  xr.resize(kEvalRows * d);
  for (int64_t i = 0; i < m; i += kEvalRows) {
    const int64_t len = std::min(kEvalRows, m - i);
    forward_eval(net, x + i * d, len, xr.data(), buf);
    if (scale != nullptr) {
      // z² for the block's rows, their log1p together (vectorised loops), then each
      // row's sum in the order of its features, as before.
      scaled_squares(xr.data(), x + i * d, center, scale, len, d);
      log1p_nonneg_inplace(xr.data(), len * d);
      for (int64_t r = 0; r < len; ++r) {
        float se = 0;
        for (int64_t j = 0; j < d; ++j) se += xr[r * d + j];
        out[i + r] = se / static_cast<float>(d);
      }
      continue;
    }
    for (int64_t r = 0; r < len; ++r) {
      float se = 0;
      const float *xi = x + (i + r) * d, *yi = xr.data() + r * d;
      for (int64_t j = 0; j < d; ++j) {
        float diff = yi[j] - xi[j];
        se += diff * diff;
      }
      out[i + r] = se / static_cast<float>(d);
    }
  }
}

void sum_output(const Net &net, const float *x, int64_t m, double *sum) {
  const int64_t rep = net.back().out, in = net[0].in;
  std::vector<float> buf, z(kEvalRows * rep);
  for (int64_t i = 0; i < m; i += kEvalRows) {
    const int64_t len = std::min(kEvalRows, m - i);
    forward_eval(net, x + i * in, len, z.data(), buf);
    for (int64_t r = 0; r < len; ++r) {
      for (int64_t j = 0; j < rep; ++j) sum[j] += z[r * rep + j];
    }
  }
}

namespace {

// each_block runs f(k, i, len, x) on the workers for every member k of K and every block
// of kEvalRows rows of t (rows i .. i+len, their values x as read: a plain table's in
// place, any other read into the worker's buffer).
template <class F>
void each_block(int64_t K, const Table &t, F f) {
  const int64_t blocks = (t.n + kEvalRows - 1) / kEvalRows;
  parallel_for(K * blocks, [&](int64_t task) {
    const int64_t k = task / blocks, i = (task % blocks) * kEvalRows, len = std::min(kEvalRows, t.n - i);
    if (t.plain()) {
      f(k, i, len, t.x + i * t.d);
      return;
    }
    thread_local std::unique_ptr<ChunkBuf> buf;
    thread_local int64_t width = 0;
    if (width != t.d) buf = std::make_unique<ChunkBuf>(width = t.d);
    t.read(i, len, buf->data());
    f(k, i, len, buf->data());
  });
}

}  // namespace

void distances(const std::vector<Net> &nets, const float *c, const Table &t, float *out) {
  const int64_t K = static_cast<int64_t>(nets.size()), rep = nets[0].back().out;
  each_block(K, t, [&](int64_t k, int64_t i, int64_t len, const float *x) {
    distances(nets[k], c + k * rep, x, len, out + k * t.n + i);
  });
}

void reconstruction(const std::vector<Net> &nets, const Table &t, float *out,
                    const std::vector<const float *> &center, const std::vector<const float *> &scale) {
  each_block(static_cast<int64_t>(nets.size()), t, [&](int64_t k, int64_t i, int64_t len, const float *x) {
    reconstruction(nets[k], x, len, out + k * t.n + i, center[k], scale[k]);
  });
}

void sum_output(const std::vector<Net> &nets, const Table &t, double *sum) {
  parallel_for(static_cast<int64_t>(nets.size()), [&](int64_t k) {
    const int64_t rep = nets[k].back().out;
    each_chunk(t, [&](int64_t, int64_t len, const float *x) { sum_output(nets[k], x, len, sum + k * rep); });
  });
}

void check_finite(const Table &t) {
  each_chunk(t, [&](int64_t i, int64_t len, const float *x) {
    for (int64_t v = 0; v < len * t.d; ++v) {
      if (!std::isfinite(x[v])) {
        throw std::runtime_error("data: row " + std::to_string(i + v / t.d) + ", column " +
                                 std::to_string(v % t.d) + " is not a finite number");
      }
    }
  });
}

}  // namespace fast
}  // namespace udocc
