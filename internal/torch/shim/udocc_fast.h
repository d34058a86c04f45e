// udocc_fast.h: the CPU fast path of udocc's shim, the fixed MLP's training step and
// scoring written out by hand over raw float buffers. It is not part of the C ABI.
//
// udocc_torch.cpp keeps the tensors (weights, BatchNorm buffers, the flat Adam buffers)
// and, on the CPU, hands this file pointers into them: one Net per member. A step here
// is what autograd and the stacked libtorch ops compute for one member (forward in train
// mode with BatchNorm over the member's valid rows, the loss, backward into the flat
// gradient buffer), in the same order of operations wherever that is cheap, so the two
// paths agree to float rounding; every matrix product is one sgemm call (gemm below),
// every BatchNorm + LeakyReLU one fused loop, and no buffer is allocated per step.
// Nothing here knows about tensors, devices or policy.
#ifndef UDOCC_FAST_H
#define UDOCC_FAST_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace udocc {
namespace fast {

constexpr float kBNEps = 1e-4f;      // BatchNorm1d(eps=1e-4, affine=False)
constexpr float kBNMomentum = 0.1f;  // running-statistics momentum
constexpr float kLeaky = 0.01f;      // LeakyReLU slope

// gemm is the row-major product C (m x n) = op(A) op(B), op(X) = X^T when t is set;
// defined in udocc_torch.cpp (oneDNN's sgemm where the process has it, else libtorch's mm).
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
          const float *b, int64_t ldb, float *c, int64_t ldc);

// Layer is one bias-free Linear layer of one member, in x out row-major, followed by
// BatchNorm (affine=false) and LeakyReLU when rm is not null.
struct Layer {
  const float *w = nullptr;
  float *gw = nullptr;          // its slot in the flat gradient buffer; null: not trained
  float *rm = nullptr, *rv = nullptr;  // running mean and variance (out); null: bare Linear
  int64_t in = 0, out = 0;
  bool bn() const { return rm != nullptr; }
};

// Net is one member's layers, input first (the encoder, then the decoder when
// pretraining).
using Net = std::vector<Layer>;

// Work holds the buffers of one minibatch step (P rows) of one member at a time; it is
// sized once per epoch and reused at every step and by every member.
class Work {
 public:
  Work(const Net &net, int64_t P);
  // forward_train runs net on the P gathered rows in a(0) in train mode: BatchNorm with
  // the statistics of the first c rows (biased variance); when update is set the running
  // statistics move (unbiased variance, momentum 0.1). The output is out().
  void forward_train(const Net &net, int64_t c, bool update);
  // backward takes the loss gradient of the first c rows of out() in dout() (the rows
  // after c have none) and writes every layer's weight gradient into its gw.
  void backward(const Net &net, int64_t c);
  float *a(size_t l) { return act_[l].data(); }  // input of layer l, P x in
  float *out() { return act_.back().data(); }     // output of the last layer, P x out
  float *dout() { return dout_.data(); }          // P x out

 private:
  int64_t P_;
  std::vector<std::vector<float>> act_;  // act_[l]: input of layer l; act_[L]: output
  std::vector<std::vector<float>> y_;    // normalised pre-activation of a BatchNorm layer
  std::vector<std::vector<float>> s_;    // 1/sqrt(var + eps) per feature of that layer
  std::vector<float> dout_, da_, dh_;
};

// kEvalRows is the number of rows of every eval-mode matrix product on the CPU, the last
// block of a call made whole with zero rows. A product's kernel, and with it the rounding
// of a row's result, is chosen by the product's shape (oneDNN's sgemm takes other kernels
// for other row counts, and on AVX2 they round differently), but never depends on the
// other rows of a block of fixed shape or on the row's place in it. So a row's eval-mode
// output (its distance, its reconstruction error) is a function of the row and the
// network alone: the same bits whichever rows, and how many, a caller scores with it.
// 64 rows, not 1,024 as before: a request of one row pays for a whole block, and at 1,024
// a loaded cardio model scored one row in about the time of 1,000 (1.0-1.5 ms against
// 0.24-0.30 ms at 64); a block of 1,000 rows costs about 10 % more CPU. Scores are the
// same bits at both sizes on this project's machines (AVX-512 and DNNL_MAX_CPU_ISA=AVX2:
// pima, cardio, thyroid, satellite and the paper's preset on pima).
constexpr int64_t kEvalRows = 64;

// forward_eval runs net in eval mode (running statistics) on the m rows of x (m x in),
// writing m x out into out; rows go through in blocks of kEvalRows held in buf.
void forward_eval(const Net &net, const float *x, int64_t m, float *out, std::vector<float> &buf);

// AdamMember is one member's step: skip when it sits the step out, else its step size
// lr/(1-β1^t), sqrt(1-β2^t) and L2 weight decay.
struct AdamMember {
  bool on = false;
  float step = 0, bc2s = 1, wd = 0;
};

// adam is torch.optim.Adam (L2 weight decay added to the gradient, no amsgrad) for member
// k of K over the flat buffers of the parameters whose sizes (K x in x out each, weight
// after weight) are lens; member k's part of a parameter is its k-th K-th. Its gradients
// are zeroed after. It touches member k's parts alone.
void adam(float *w, float *grad, float *m, float *v, const std::vector<int64_t> &lens, int64_t K,
          int64_t k, const AdamMember &a);

// parallel_for runs f(i) for every i in [0, n) on up to the shim's worker count of
// threads (udocc_set_num_threads; the calling thread among them), each i on one thread,
// every matrix product single-threaded; defined in udocc_torch.cpp. The tasks of every
// caller below write outputs of their own and compute each value the same way whichever
// thread runs them, so results are bit-identical for any worker count. The first
// exception a task throws is rethrown here, after every thread has stopped.
void parallel_for(int64_t n, const std::function<void(int64_t)> &f);

// parallel_chains runs len.size() chains on up to the shim's worker count of threads:
// f(k, lo, hi) runs chain k's steps lo .. hi-1, and chain k's pieces run one at a time, in
// order, each after the one before it has returned (on whichever thread), so a chain's
// state needs no lock and sees its steps in order, as on one thread. Chain k's work is its
// first len[k] steps (f skips the rest, up to S, which its last piece covers); the steps
// are dealt to the threads in equal shares by McNaughton's wrap-around rule (defined in
// udocc_torch.cpp), so five chains on two threads take two and a half chains' time, and a
// chain moves between threads at most once. The first exception f throws is rethrown
// here, after every thread has stopped.
void parallel_chains(const std::vector<int64_t> &len, int64_t S,
                     const std::function<void(int64_t, int64_t, int64_t)> &f);

// kPeriod is how many rows' worth of the scaler a Table holds: standardising runs over
// that many rows' values at a time, in whole vectors whatever d is.
constexpr int64_t kPeriod = 8;

// Table is the data the fast path reads: n rows of d features, row i being row rows[i]
// (row i where rows is null) of the caller's row-major matrix x, standardised on every
// read as float((double(v) - mean[j]) / scale[j]) where mean is not null, which is
// udocc_group_set_data_scaled's arithmetic, so a row read here is, to the bit, the row
// that copy holds; row n is the padding row of zeros. A table over a copy the group owns
// is x with neither rows nor mean. Reading standardises instead of keeping a standardised
// copy of the whole table beside the caller's (a fit's peak memory).
struct Table {
  const float *x = nullptr;
  int64_t n = 0, d = 0;
  const int32_t *rows = nullptr;
  // mean and scale: kPeriod * d values each, column j's at j, j + d, j + 2d, ...
  const double *mean = nullptr, *scale = nullptr;
  // plain: row i is x's row i as it is, so whole-table passes read x in place.
  bool plain() const { return rows == nullptr && mean == nullptr; }
  // of is the plain table over the m x d row-major matrix x.
  static Table of(const float *x, int64_t m, int64_t d) {
    Table t;
    t.x = x;
    t.n = m;
    t.d = d;
    return t;
  }
  // read writes rows i, i+1, ..., i+m-1 (i+m <= n+1) into out (m x d).
  void read(int64_t i, int64_t m, float *out) const;
  // row writes row i (i <= n) into out (d).
  void row(int64_t i, float *out) const;
};

// Epoch is one epoch's plan over the data, as udocc_torch.h describes it: member k's
// step s processes rows[(k*S + s)*P ...], counts[k*S + s] of them training rows, then
// extra[k*S + s] passengers (extra may be null); flags[k*S + s] says it trains. Row
// index n is the padding row.
struct Epoch {
  Table X;
  int64_t n = 0, d = 0;
  const int32_t *rows = nullptr;  // int32: half the memory of int64 (a group has < 2^31 rows)
  const int32_t *counts = nullptr, *extra = nullptr;
  const uint8_t *flags = nullptr;
  int64_t K = 0, S = 0, P = 0;
  bool trains(int64_t k, int64_t s) const { return flags[k * S + s] != 0 && counts[k * S + s] > 0; }
  // rode is member k's rows at step s: its training rows and its passengers.
  int64_t rode(int64_t k, int64_t s) const { return counts[k * S + s] + (extra == nullptr ? 0 : extra[k * S + s]); }
  // works says member k does anything at step s: it trains, or, where riders is true (the
  // train-mode distances are asked for), it has rows to score.
  bool works(int64_t k, int64_t s, bool riders) const { return trains(k, s) || (riders && rode(k, s) > 0); }
};

// StepFn runs member k's optimiser step s once its gradient is in its parts of the flat
// gradient buffer; it is called at the steps where member k trains, and touches member
// k's state alone. The members of an epoch train in parallel (parallel_chains), each its
// steps in order: they share no parameter, so this is the lockstep epoch's arithmetic.
using StepFn = void (*)(void *ctx, int64_t k, int64_t s);

// pretrain_epoch runs one autoencoder epoch (MSE over all features): loss[k] receives
// member k's mean minibatch loss.
void pretrain_epoch(const std::vector<Net> &nets, const Epoch &e, StepFn step, void *ctx,
                    double *loss);

// kSadEps keeps Deep SAD's inverse distance of a labelled anomaly finite (Ruff et al.).
constexpr float kSadEps = 1e-6f;

// Objective is the fine-tuning loss of every member: the one-class loss mean ||z-c||^2,
// or where soft[k] the soft-boundary loss R^2 + (1/nu) mean(max(0, ||z-c||^2 - R^2)),
// with R set after each training step from the minibatch's distances where update_r[k].
// With label (one a data row: 1 normal, -1 anomaly, 0 unlabelled) the one-class loss is
// Deep SAD's (Ruff et al. 2020, Eq. (3)): a labelled normal row's term is eta·d, a
// labelled anomaly's eta / (d + kSadEps).
struct Objective {
  const float *c = nullptr;  // K x rep
  int64_t rep = 0;
  const uint8_t *soft = nullptr, *update_r = nullptr;
  const double *nu = nullptr;
  float *R = nullptr;        // K, updated in place
  const int8_t *label = nullptr;
  float eta = 0;
};

// train_epoch runs one fine-tuning epoch; loss[k] receives the mean minibatch loss and
// train_dist (K x n, when not null) the train-mode distance of every row visited.
void train_epoch(const std::vector<Net> &nets, const Epoch &e, const Objective &o, StepFn step,
                 void *ctx, double *loss, float *train_dist);

// distances writes ||net(x) - c||^2 in eval mode for the m rows of x into out (m).
void distances(const Net &net, const float *c, const float *x, int64_t m, float *out);
// reconstruction writes ||x - net(x)||^2 / d in eval mode for the m rows of x (m x d, the
// net an autoencoder) into out (m); with center and scale (d each, both or neither) the
// robust (1/d) sum_j log(1 + ((x_j - net(x)_j - center_j) / scale_j)^2) instead.
void reconstruction(const Net &net, const float *x, int64_t m, float *out, const float *center = nullptr,
                    const float *scale = nullptr);
// sum_output adds the eval-mode outputs of the m rows of x into sum (out), in double.
void sum_output(const Net &net, const float *x, int64_t m, double *sum);

// The same over the n rows of a table for every member of nets at once, member k's n
// values at out + k n: each member's block of kEvalRows rows is a task of parallel_for.
// c is K x rep; center and scale hold a pointer per member (null: the squared error).
// A plain Table over a caller's m x d matrix (Table::of) scores that matrix.
void distances(const std::vector<Net> &nets, const float *c, const Table &t, float *out);
void reconstruction(const std::vector<Net> &nets, const Table &t, float *out,
                    const std::vector<const float *> &center, const std::vector<const float *> &scale);
// sum_output adds each member's eval-mode outputs of the table's rows into sum + k rep,
// in double, rows in order: one task a member, so that the sum's order is fixed.
void sum_output(const std::vector<Net> &nets, const Table &t, double *sum);
// check_finite throws std::runtime_error naming the first row and column of t whose
// value, as read, is not a finite number.
void check_finite(const Table &t);

}  // namespace fast
}  // namespace udocc

#endif
