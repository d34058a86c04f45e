// udocc_torch.cpp: the libtorch side of udocc (see udocc_torch.h for the contract).
//
// K models of one architecture live as stacked tensors: a Linear layer is a K x in x out
// weight applied with a batched matrix product, a BatchNorm1d layer (affine=false,
// eps 1e-4, momentum 0.1) keeps K x out running statistics. Minibatches are padded to a
// common width P; a K x P x 1 mask restricts every BatchNorm statistic and every loss to
// a member's own valid rows, so a member's numbers do not depend on the other members.
// Adam is written out on the stacked tensors so a member that sits out a step keeps its
// weights and moments unchanged (its step count does not advance either).
//
// CUDA: this file includes no CUDA header, so one source builds against a CPU and a CUDA
// libtorch; build.sh links libtorch_cuda when the libtorch has it, and parse_device says
// why "cuda" cannot be used where it cannot. The data is copied to the device once
// (set_data). On CUDA the host waits for the device only where a buffer crosses: the
// epoch's plan goes over in a few copies before its first step (synchronous, since the
// caller's buffers are only valid during the call), and results come back after its last
// (the K losses, the train-mode distances when asked for), in Distances (one copy of
// K x n) and in the small getters. The steps in between queue without a sync: every
// per-step branch (does a member train, is the batch dense) is decided on the host from
// the host plan, never from a device value. Points where the host waits say "sync".
//
// On the CPU the epochs and the scoring run on the fast path of udocc_fast.cpp (see
// udocc_fast.h) unless the group is set to the reference (udocc_group_set_reference);
// the tensor ops here are then the reference it is tested against, and CUDA's path. Both
// paths leave each step's gradients in the flat buffer Adam.grad and then step Adam: in
// adam_at here, in FastStep::run there.
#include "udocc_torch.h"
#include "udocc_reduce.h"

#include "udocc_fast.h"
#include "udocc_keep_pages.h"

#include <dlfcn.h>
#include <malloc.h>
#include <signal.h>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>
#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <torch/version.h>

#include <algorithm>
#include <initializer_list>
#include <atomic>
#include <condition_variable>
#include <cmath>
#include <cstdio>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

constexpr double kBNEps = 1e-4;      // BatchNorm1d(eps=1e-4, affine=False), as in Ruff's nets
constexpr double kBNMomentum = 0.1;  // PyTorch's default running-statistics momentum
constexpr double kLeaky = 0.01;      // LeakyReLU slope
constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kAdamEps = 1e-8;  // torch.optim.Adam defaults
// Versions of the file udocc_group_save writes: 1, or 2 for a member whose reconstruction
// error is the robust one (udocc_group_set_reconstruction_scale), which a build that reads
// only format 1 must refuse rather than score with the squared error.
constexpr int64_t kFormat = 1;
constexpr int64_t kFormatRobust = 2;

// Errors cross the C ABI as a message with a code in front of it (udocc_torch.h): an
// ErrorBlock's msg is what an entry point returns, udocc_error_code reads the code before
// it and udocc_error_free frees the block.
struct ErrorBlock {
  int code;
  char msg[1];  // the message, NUL-terminated, allocated past the struct's end
};

// out_of_memory is the error returned when even the error message cannot be allocated:
// a static block laid out as an ErrorBlock, so that a failed malloc never reads as
// success (NULL) in Go; udocc_error_free knows not to free it.
struct {
  int code;
  char msg[sizeof "out of memory (while reporting an error)"];
} out_of_memory = {UDOCC_ERR_NO_MEMORY, "out of memory (while reporting an error)"};
static_assert(offsetof(decltype(out_of_memory), msg) == offsetof(ErrorBlock, msg), "one layout");

ErrorBlock *block_of(const char *msg) {
  return reinterpret_cast<ErrorBlock *>(const_cast<char *>(msg) - offsetof(ErrorBlock, msg));
}

// dup_error makes an error of code with message s; it never throws.
char *dup_error(int code, const char *s) noexcept {
  const size_t n = std::strlen(s);
  auto *b = static_cast<ErrorBlock *>(std::malloc(offsetof(ErrorBlock, msg) + n + 1));
  if (b == nullptr) return out_of_memory.msg;
  b->code = code;
  std::memcpy(b->msg, s, n + 1);
  return b->msg;
}

// coded_error is an exception the Go side branches on: its code crosses the ABI.
struct coded_error : std::runtime_error {
  coded_error(int code, const std::string &what) : std::runtime_error(what), code(code) {}
  int code;
};

// error_of turns the exception e into an error of the C ABI; it never throws.
char *error_of(std::exception_ptr e) noexcept {
  try {
    std::rethrow_exception(e);
  } catch (const coded_error &x) {
    return dup_error(x.code, x.what());
  } catch (const std::bad_alloc &x) {
    return dup_error(UDOCC_ERR_NO_MEMORY, x.what());
  } catch (const c10::Error &x) {
    return dup_error(UDOCC_ERR_TORCH, x.what_without_backtrace());
  } catch (const std::exception &x) {
    return dup_error(UDOCC_ERR_FAILED, x.what());
  } catch (...) {
    return dup_error(UDOCC_ERR_UNKNOWN, "unknown C++ exception");
  }
}

// workers is the number of threads the fast path's tasks run on (udocc_set_num_threads,
// udocc_fast.h's parallel_for). libtorch's own intra-op threads stay at one: a matrix
// product split over threads takes another shape of work, and so other roundings, for
// every thread count. OpenMP keeps the count per OS thread and Go runs each call on
// whichever OS thread is free, so every entry point applies it to its own thread before
// any tensor work, and every worker to itself.
std::atomic<int> workers{1};

// omp_single_threaded holds a worker thread's OpenMP team to one thread, through the
// OpenMP runtime libtorch loaded (found by name: the shim links none itself); a thread
// that OpenMP did not start otherwise gets the process's default team, every core.
void omp_single_threaded() {
  using fn = void (*)(int);
  static const fn set = reinterpret_cast<fn>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  if (set != nullptr) set(1);
}

// single_threaded holds the calling thread's OpenMP team (libtorch's and oneDNN's
// products) to one thread.
void single_threaded() {
  if (at::get_num_threads() != 1) at::set_num_threads(1);
}

// Pool is the shim's own threads, kept for the life of the process. Every entry point's
// work runs on one of them (guard), and the fast path's parallel tasks on more (on_workers):
// never on the thread Go called from. The reason is glibc's malloc. oneDNN's sgemm
// allocates and frees a 74 KB packing buffer on every call, tens of thousands of times
// an epoch; a thread allocates from the arena it was given at its first allocation, and
// two threads computing on one arena wait on its lock (a pretraining epoch of the default
// group at 10^6 rows on 2 threads took 0.55 to 1.05 s from run to run, by whether the two
// shared one, with M_ARENA_MAX 2). Threads that live as long as the process each keep an
// arena of their own, given once (glibc gives a new thread a new or an unused arena while
// there are fewer than 8 per core). And since Go runs each call on whichever of its OS
// threads is free, a call's large buffers would otherwise land in the arena of whatever
// thread that was, each arena keeping its own freed pages (udocc_keep_pages): taking the most
// recently returned thread first (a stack) keeps one call after another on one thread,
// and so on one arena.
class Pool {
 public:
  // run runs work(i) for every i in [0, n), each on a thread of its own, and returns when
  // all have returned: i = 0 on the calling thread where caller is true, the others on
  // pool threads. work must not throw.
  void run(int64_t n, bool caller, const std::function<void(int64_t)> &work) {
    const int64_t first = caller ? 1 : 0;
    std::vector<Worker *> ws = take(n - first);
    Latch done(n - first);
    for (int64_t i = first; i < n; ++i) ws[i - first]->start(&work, i, &done);
    if (caller) work(0);
    done.wait();
    give(ws);
  }

 private:
  // Latch counts the tasks of one run down to zero.
  struct Latch {
    explicit Latch(int64_t n) : left(n) {}
    void count_down() {
      std::lock_guard<std::mutex> lock(mu);
      if (--left == 0) cv.notify_all();
    }
    void wait() {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return left == 0; });
    }
    std::mutex mu;
    std::condition_variable cv;
    int64_t left;
  };

  // Worker is one pool thread, waiting for a task.
  struct Worker {
    Worker() : t([this] { loop(); }) {}
    void start(const std::function<void(int64_t)> *w, int64_t i, Latch *d) {
      std::lock_guard<std::mutex> lock(mu);
      work = w;
      index = i;
      done = d;
      cv.notify_one();
    }
    void loop();
    std::mutex mu;
    std::condition_variable cv;
    const std::function<void(int64_t)> *work = nullptr;
    int64_t index = 0;
    Latch *done = nullptr;
    std::thread t;  // last: started once the fields above exist
  };

  // take pops n idle workers (the most recently returned first), starting new ones when
  // too few are idle; give pushes them back so that the first taken is the next taken.
  std::vector<Worker *> take(int64_t n) {
    std::vector<Worker *> ws;
    std::lock_guard<std::mutex> lock(mu_);
    while (static_cast<int64_t>(ws.size()) < n && !idle_.empty()) {
      ws.push_back(idle_.back());
      idle_.pop_back();
    }
    // Workers are never destroyed: their threads wait for work until the process exits.
    // Where one cannot be started (no thread, no memory), the idle ones taken go back.
    try {
      ws.reserve(n);
      while (static_cast<int64_t>(ws.size()) < n) ws.push_back(new Worker);
    } catch (...) {
      idle_.insert(idle_.end(), ws.rbegin(), ws.rend());
      throw;
    }
    return ws;
  }
  void give(const std::vector<Worker *> &ws) {
    std::lock_guard<std::mutex> lock(mu_);
    idle_.insert(idle_.end(), ws.rbegin(), ws.rend());
  }

  std::mutex mu_;
  std::vector<Worker *> idle_;
};

// on_pool is true on the pool's threads.
thread_local bool on_pool = false;

// block_async_signals blocks, on the calling thread, every signal but those a fault
// raises on the faulting thread itself. The host's asynchronous signals (a Go program's
// SIGPROF while it profiles, SIGURG for preemption, SIGCHLD, ...) then go to its own
// threads, never to the shim's, which run oneDNN's JIT sgemm: with 100 SIGPROFs a second
// landing on two pool threads inside it, glibc aborted a Go test that profiled an
// explanation ("corrupted size vs. prev_size while consolidating", in the free of
// sgemm's packing buffer) on most runs; with the signals blocked, none did
// (TestPoolSignals, internal/torch/signals_test.go). The threads that OpenMP starts from a pool thread
// inherit the mask.
void block_async_signals() {
  sigset_t set;
  sigfillset(&set);
  for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS}) sigdelset(&set, s);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void Pool::Worker::loop() {
  on_pool = true;
  pthread_setname_np(pthread_self(), "udocc-pool");  // as top -H and /proc show it
  block_async_signals();
  omp_single_threaded();
  for (;;) {
    const std::function<void(int64_t)> *w;
    int64_t i;
    Latch *d;
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return work != nullptr; });
      w = work;
      i = index;
      d = done;
      work = nullptr;
    }
    (*w)(i);
    d->count_down();
  }
}

// pool is the process's Pool, never destroyed (its threads outlive static destructors).
Pool &pool() {
  static Pool *p = new Pool;
  return *p;
}

// guard runs f on a pool thread (inline when already on one: a guard within a guard) and
// returns its exception as an error of the C ABI (error_of), or null. The hop to the pool
// (which may start a thread, and allocates) is inside a try of its own: when it fails, f
// has not run and its failure is the entry point's error.
template <typename F>
char *guard(F &&f) noexcept {
  char *err = nullptr;
  auto run = [&]() noexcept {
    try {
      single_threaded();
      f();
    } catch (...) {
      err = error_of(std::current_exception());
    }
  };
  if (on_pool) {
    run();
    return err;
  }
  try {
    pool().run(1, false, [&](int64_t) { run(); });
  } catch (...) {
    return error_of(std::current_exception());
  }
  return err;
}

// cuda_compiled is true when libtorch_cuda is loaded: build.sh links it (with
// --no-as-needed) when the libtorch has it, and its static initialisers register CUDA.
bool cuda_compiled() {
  static const bool linked = dlopen("libtorch_cuda.so", RTLD_NOW | RTLD_NOLOAD) != nullptr;
  return linked;
}

// cuda_unavailable_reason asks the CUDA runtime that libtorch_cuda loaded why it sees no
// device ("no CUDA-capable device is detected", "CUDA driver version is insufficient
// ..."), looked up by name so this file needs no CUDA header; empty when it cannot tell.
std::string cuda_unavailable_reason() {
  using count_fn = int (*)(int *);
  using string_fn = const char *(*)(int);
  auto count = reinterpret_cast<count_fn>(dlsym(RTLD_DEFAULT, "cudaGetDeviceCount"));
  auto text = reinterpret_cast<string_fn>(dlsym(RTLD_DEFAULT, "cudaGetErrorString"));
  std::string why;
  int n = 0;
  if (count != nullptr && text != nullptr) {
    int err = count(&n);
    if (err != 0 && text(err) != nullptr) why = text(err);
  }
  if (const char *vis = std::getenv("CUDA_VISIBLE_DEVICES")) {
    why += (why.empty() ? "" : "; ") + std::string("CUDA_VISIBLE_DEVICES=\"") + vis + "\"";
  }
  return why;
}

int64_t cuda_device_count() {
  if (!cuda_compiled()) return 0;
  try {
    return static_cast<int64_t>(torch::cuda::device_count());
  } catch (...) {
    return 0;
  }
}

torch::Device parse_device(const std::string &s) {
  torch::Device dev(s);  // throws on a malformed string
  if (dev.is_cuda()) {
    if (!cuda_compiled()) {
      throw std::runtime_error("device \"" + s + "\": no CUDA in this build: the shim is linked against a "
                               "libtorch without CUDA (build it with LIBTORCH set to a CUDA libtorch, "
                               "see docs/cuda.md)");
    }
    int64_t count = cuda_device_count();
    if (count == 0) {
      std::string why = cuda_unavailable_reason();
      throw std::runtime_error("device \"" + s + "\": libtorch has CUDA but no CUDA device is visible" +
                               (why.empty() ? std::string() : " (" + why + ")"));
    }
    if (dev.has_index() && dev.index() >= count) {
      throw std::runtime_error("device \"" + s + "\": only " + std::to_string(count) +
                               " CUDA device(s) visible");
    }
  } else if (!dev.is_cpu()) {
    throw std::runtime_error("device \"" + s + "\": only cpu and cuda are supported");
  }
  return dev;
}

struct Layer {
  at::Tensor w;       // K x in x out, requires grad
  at::Tensor rm, rv;  // K x out running mean/var; undefined for the bare last Linear
  bool bn() const { return rm.defined(); }
};

// Adam keeps every parameter it covers in one flat buffer, weight tensor after weight
// tensor (each K x in x out, contiguous, as autograd wants its gradients), so a step is a
// dozen whole-buffer operations whatever the number of layers: the layers' weights are
// views into flat, and their gradients views into grad, into which backward accumulates.
// member maps each element to its member, to spread the per-member coefficients.
struct Adam {
  at::Tensor flat, grad, m, v;     // K x in x out per weight, flattened
  at::Tensor member;               // int64, the member of each element of flat
  std::vector<at::Tensor> params;  // the layers' weights, views into flat
  std::vector<int64_t> t;        // steps taken by each member
  std::vector<double> lr, wd;    // per member
  at::Tensor wd_dev;             // K, float, on the device
  bool wd_uniform = true;        // every member has wd[0]
  udocc::Reducer *reduce = nullptr;  // data-parallel: averages grad over the ranks
};

// Borrowed is a caller's table that a group on the fast path reads in place
// (udocc_group_borrow_data): x is the caller's, which stays unchanged and in place until
// the last group sharing it drops it; the scaler and the row list are the shim's copies.
struct Borrowed {
  std::vector<double> mean, scale;
  std::vector<int32_t> rows;
  udocc::fast::Table table;  // over the caller's x, these rows and this scaler
};

}  // namespace

struct udocc_group {
  std::vector<int64_t> sizes;  // input, hidden..., representation
  int64_t K = 0;
  torch::Device dev{torch::kCPU};
  // stream is the group's own CUDA stream (none on the CPU): every entry point queues its
  // work there, so groups trained concurrently (udocc-bench --jobs) overlap on the GPU
  // instead of serialising on the default stream.
  c10::optional<c10::Stream> stream;
  std::vector<Layer> enc, dec;
  at::Tensor c;  // K x rep
  at::Tensor R;  // K
  // rc and rs (K x d, on the CPU), when defined, make the reconstruction error the robust
  // mean of log(1 + ((e_j - rc_j) / rs_j)^2) over the residuals e = x - dec(enc(x))
  // (udocc_group_set_reconstruction_scale).
  at::Tensor rc, rs;
  at::Tensor X;  // (n+1) x d; the last row is zeros and serves as padding
  // borrowed, when set, is the data instead of X on the fast path (X stays undefined until
  // the libtorch path needs it: see data); derived groups share it.
  std::shared_ptr<const Borrowed> borrowed;
  int64_t n = 0;
  Adam adam;
  bool adam_ready = false;
  std::shared_ptr<udocc::Reducer> reducer;  // data-parallel rank (udocc_dist.cpp); null in one process
  // reference: on the CPU, run the libtorch ops (autograd) instead of the fast path;
  // set from UDOCC_REFERENCE=1 at creation, or by udocc_group_set_reference.
  bool reference = false;
  // labels, when not empty, are the data rows' answers for Deep SAD's loss (udocc_group_set_labels):
  // 0 unlabelled, 1 normal, -1 anomaly; eta weighs the labelled rows' terms.
  std::vector<int8_t> labels;
  double eta = 0;
};

namespace {

at::TensorOptions f32(const torch::Device &d) { return at::TensorOptions().dtype(at::kFloat).device(d); }

// make_layers builds the stacked layers from in to out sizes; every layer but the last
// has BatchNorm. Weights follow PyTorch's Linear default, U(-1/sqrt(in), 1/sqrt(in)),
// drawn per member from that member's generator so the seed alone fixes them.
std::vector<Layer> make_layers(const std::vector<int64_t> &sz, std::vector<at::Generator> &gens,
                               const torch::Device &dev) {
  std::vector<Layer> layers;
  for (size_t i = 0; i + 1 < sz.size(); ++i) {
    int64_t in = sz[i], out = sz[i + 1];
    double bound = 1.0 / std::sqrt(static_cast<double>(in));
    std::vector<at::Tensor> ws;
    for (auto &g : gens) ws.push_back(torch::empty({in, out}).uniform_(-bound, bound, g));
    Layer l;
    l.w = torch::stack(ws).to(dev).set_requires_grad(true);
    if (i + 2 < sz.size()) {
      int64_t K = static_cast<int64_t>(gens.size());
      l.rm = torch::zeros({K, out}, f32(dev));
      l.rv = torch::ones({K, out}, f32(dev));
    }
    layers.push_back(std::move(l));
  }
  return layers;
}

// Batch is one padded step: m is the K x P x 1 validity mask, cnt the K x 1 x 1 row
// counts (at least 1), upd the K x 1 mask of members whose running statistics move.
struct Batch {
  at::Tensor m, cnt, upd;
  bool dense = false;  // every member trains on P valid rows: no masking needed
};

// forward_train applies layers in train mode: BatchNorm normalises with each member's
// batch statistics over its valid rows (biased variance, as PyTorch does) and moves
// the running statistics of the members in b.upd (unbiased variance, momentum 0.1).
at::Tensor forward_train(std::vector<Layer> &layers, at::Tensor h, const Batch &b) {
  for (auto &l : layers) {
    h = torch::bmm(h, l.w);
    if (!l.bn()) continue;
    if (b.dense) {
      // All members have P rows: PyTorch's fused batch_norm over (P, K*out) gives each
      // member's statistics and moves the K*out running statistics in place.
      const int64_t K = h.size(0), P = h.size(1), C = h.size(2);
      at::Tensor flat = K == 1 ? h.view({P, C}) : h.transpose(0, 1).reshape({P, K * C});
      at::Tensor rm = l.rm.view({-1}), rv = l.rv.view({-1});
      flat = torch::batch_norm(flat, {}, {}, rm, rv, true, kBNMomentum, kBNEps, false);
      h = K == 1 ? flat.view({1, P, C}) : flat.view({P, K, C}).transpose(0, 1);
      h = torch::leaky_relu(h, kLeaky);
      continue;
    }
    at::Tensor mean = (h * b.m).sum(1, true) / b.cnt;
    at::Tensor diff = h - mean;
    at::Tensor var = (diff * diff * b.m).sum(1, true) / b.cnt;
    if (b.upd.defined()) {
      torch::NoGradGuard ng;
      at::Tensor unbiased = var.squeeze(1) * b.cnt.squeeze(1) / (b.cnt.squeeze(1) - 1).clamp_min(1);
      l.rm.add_(b.upd * kBNMomentum * (mean.squeeze(1) - l.rm));
      l.rv.add_(b.upd * kBNMomentum * (unbiased - l.rv));
    }
    h = torch::leaky_relu(diff * torch::rsqrt(var + kBNEps), kLeaky);
  }
  return h;
}

// mm_eval is a.mm(b) for float matrices on the CPU outside autograd, run by the fast
// path's gemm: oneDNN's sgemm where the process has it, which is where libtorch's own
// product ran while the shim still interposed BLAS's sgemm_ (it no longer defines any
// BLAS symbol), so that scoring rows on the libtorch path gives the same bits as before
// and as the fast path. Elsewhere (autograd, CUDA) it is libtorch's mm.
at::Tensor mm_eval(const at::Tensor &a, const at::Tensor &b) {
  if (at::GradMode::is_enabled() || !a.is_cpu() || a.scalar_type() != at::kFloat || a.dim() != 2 ||
      b.dim() != 2 || a.size(0) == 0 || a.size(1) == 0 || b.size(1) == 0) {
    return a.mm(b);
  }
  at::Tensor A = a.contiguous(), B = b.contiguous();
  at::Tensor C = torch::empty({A.size(0), B.size(1)}, A.options());
  udocc::fast::gemm(false, false, A.size(0), B.size(1), A.size(1), A.data_ptr<float>(), A.size(1),
                    B.data_ptr<float>(), B.size(1), C.data_ptr<float>(), B.size(1));
  return C;
}

// StackedMm is the batched product h w of h (K x m x in) and w (K x in x out) on the CPU
// as an autograd function whose forward and backward products are the fast path's gemm
// (oneDNN's sgemm): the attributions' gradients (distance_attributions) then never reach
// the process's BLAS either, as libtorch's own bmm would.
struct StackedMm : public torch::autograd::Function<StackedMm> {
  static at::Tensor forward(torch::autograd::AutogradContext *ctx, const at::Tensor &h, const at::Tensor &w) {
    at::Tensor H = h.contiguous(), W = w.contiguous();
    ctx->save_for_backward({H, W});
    const int64_t K = H.size(0), m = H.size(1), in = H.size(2), out = W.size(2);
    at::Tensor C = torch::empty({K, m, out}, H.options());
    for (int64_t k = 0; k < K; ++k) {
      udocc::fast::gemm(false, false, m, out, in, H[k].data_ptr<float>(), in, W[k].data_ptr<float>(), out,
                        C[k].data_ptr<float>(), out);
    }
    return C;
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                 torch::autograd::variable_list grads) {
    auto saved = ctx->get_saved_variables();
    const at::Tensor &H = saved[0], &W = saved[1];
    at::Tensor G = grads[0].contiguous();
    const int64_t K = H.size(0), m = H.size(1), in = H.size(2), out = W.size(2);
    at::Tensor gh, gw;
    if (ctx->needs_input_grad(0)) {
      gh = torch::empty({K, m, in}, H.options());  // G W^T
      for (int64_t k = 0; k < K; ++k) {
        udocc::fast::gemm(false, true, m, in, out, G[k].data_ptr<float>(), out, W[k].data_ptr<float>(), out,
                          gh[k].data_ptr<float>(), in);
      }
    }
    if (ctx->needs_input_grad(1)) {
      gw = torch::empty({K, in, out}, W.options());  // H^T G
      for (int64_t k = 0; k < K; ++k) {
        udocc::fast::gemm(true, false, in, out, m, H[k].data_ptr<float>(), in, G[k].data_ptr<float>(), out,
                          gw[k].data_ptr<float>(), out);
      }
    }
    return {gh, gw};
  }
};

// matmul_eval is torch::matmul(h, w) of h (m x in, or K x m x in) and the stacked
// weights w (K x in x out): K x m x out, member by member through mm_eval outside
// autograd on the CPU, and through StackedMm under it, so that no product of the shim's
// reaches the process's BLAS.
at::Tensor matmul_eval(const at::Tensor &h, const at::Tensor &w) {
  if (!h.is_cpu() || h.scalar_type() != at::kFloat || w.dim() != 3 || (h.dim() != 2 && h.dim() != 3) ||
      h.numel() == 0 || w.numel() == 0) {
    return torch::matmul(h, w);
  }
  if (at::GradMode::is_enabled()) {
    if (h.dim() != 3 || h.size(0) != w.size(0)) return torch::matmul(h, w);
    return StackedMm::apply(h, w);
  }
  std::vector<at::Tensor> out;
  for (int64_t k = 0; k < w.size(0); ++k) out.push_back(mm_eval(h.dim() == 2 ? h : h[k], w[k]));
  return torch::stack(out, 0);
}

// forward_eval applies layers in eval mode to x (m x in, shared by all members) or to
// K x m x in, giving K x m x out.
// normalise_eval is BatchNorm in eval mode with the running mean rm and variance rv,
// then LeakyReLU.
at::Tensor normalise_eval(const at::Tensor &h, const at::Tensor &rm, const at::Tensor &rv) {
  return torch::leaky_relu((h - rm) * torch::rsqrt(rv + kBNEps), kLeaky);
}

at::Tensor forward_eval(const std::vector<Layer> &layers, at::Tensor h) {
  for (const auto &l : layers) {
    h = matmul_eval(h, l.w);
    if (l.bn()) h = normalise_eval(h, l.rm.unsqueeze(1), l.rv.unsqueeze(1));
  }
  return h;
}

// forward_rows is forward_eval through each of stages (the encoder; the encoder and
// then the decoder) over the rows of x (m x in, shared by all members): K x m x out. On
// the CPU it runs the shape of work of the fast path (udocc_fast.h, kEvalRows): member by
// member, in blocks of exactly kEvalRows rows, the last one padded with zero rows, so that
// a row's output is a function of the row and its member's network alone, whatever the
// rows scored with it and however many members the group holds. On a GPU in one piece.
at::Tensor forward_rows(std::initializer_list<const std::vector<Layer> *> stages, const at::Tensor &x) {
  if (!x.is_cpu()) {
    at::Tensor h = x;
    for (const auto *layers : stages) h = forward_eval(*layers, h);
    return h;
  }
  const int64_t m = x.size(0), rows = udocc::fast::kEvalRows;
  const int64_t K = (*stages.begin())->front().w.size(0);
  std::vector<std::vector<at::Tensor>> parts(K);
  for (int64_t i = 0; i < m; i += rows) {
    const int64_t len = std::min(rows, m - i);
    at::Tensor b = x.narrow(0, i, len);
    if (len < rows) b = torch::constant_pad_nd(b, {0, 0, 0, rows - len});
    for (int64_t k = 0; k < K; ++k) {
      at::Tensor h = b;
      for (const auto *layers : stages) {
        for (const auto &l : *layers) {
          h = mm_eval(h, l.w[k]);
          if (l.bn()) h = normalise_eval(h, l.rm[k], l.rv[k]);
        }
      }
      parts[k].push_back(h.narrow(0, 0, len));
    }
  }
  std::vector<at::Tensor> members;
  for (auto &p : parts) members.push_back(p.size() == 1 ? p[0] : torch::cat(p, 0));
  return torch::stack(members, 0);
}

// adam_reset moves the weights in params into a fresh flat buffer and rebinds each layer's
// weight to its view there (a leaf that requires grad), with its gradient preset to the
// matching view of the flat gradient.
void adam_reset(udocc_group *g, std::vector<at::Tensor *> params, const double *lr, const double *wd) {
  Adam a;
  int64_t T = 0;
  std::vector<at::Tensor> members;
  for (const at::Tensor *p : params) {
    T += p->numel();
    members.push_back(torch::arange(g->K, at::TensorOptions().dtype(at::kLong)).repeat_interleave(p->numel() / g->K));
  }
  a.member = torch::cat(members).to(g->dev);
  a.flat = torch::empty({T}, f32(g->dev));
  a.grad = torch::zeros({T}, f32(g->dev));
  a.m = torch::zeros({T}, f32(g->dev));
  a.v = torch::zeros({T}, f32(g->dev));
  int64_t off = 0;
  for (at::Tensor *p : params) {
    const int64_t len = p->numel();
    at::Tensor w = a.flat.narrow(0, off, len).view(p->sizes());
    {
      torch::NoGradGuard ng;
      w.copy_(*p);
    }
    w.set_requires_grad(true);
    w.mutable_grad() = a.grad.narrow(0, off, len).view(p->sizes());
    *p = w;
    a.params.push_back(w);
    off += len;
  }
  a.t.assign(g->K, 0);
  a.lr.assign(lr, lr + g->K);
  a.wd.assign(wd, wd + g->K);
  for (double w : a.wd) a.wd_uniform = a.wd_uniform && w == a.wd[0];
  std::vector<float> wd32(a.wd.begin(), a.wd.end());
  a.wd_dev = torch::tensor(wd32, at::kFloat).to(g->dev);
  a.reduce = g->reducer.get();
  g->adam = std::move(a);
  g->adam_ready = true;
}

// AdamCoef holds, for one step, each member's step size lr/(1-β1^t) (0 for a member that
// sits the step out) and sqrt(1-β2^t), as torch.optim.Adam computes them.
struct AdamCoef {
  at::Tensor step, bc2s;  // K, float
};

// adam_step is torch.optim.Adam (L2 weight decay added to the gradient, no amsgrad) for
// the members in on (K, bool); the others keep parameters and moments. When dense is
// true every member is on and the moments are updated in place.
void adam_step(Adam &a, const AdamCoef &c, const at::Tensor &on, bool dense) {
  torch::NoGradGuard ng;
  int64_t off = 0;
  for (at::Tensor &p : a.params) {
    // Backward adds into the preset gradient in place; should autograd ever have
    // replaced it, its values go back into the flat gradient here.
    const int64_t len = p.numel();
    at::Tensor slot = a.grad.narrow(0, off, len).view(p.sizes());
    if (!p.grad().defined() || p.grad().data_ptr() != slot.data_ptr()) {
      if (p.grad().defined()) slot.copy_(p.grad());
      p.mutable_grad() = slot;
    }
    off += len;
  }
  if (a.reduce != nullptr) {
    // Data-parallel: every rank steps on the mean of the ranks' gradients, and on the
    // same code path whatever its own batch widths, so the ranks' weights stay equal.
    udocc::mean_all(*a.reduce, {a.grad});
    dense = false;
  }
  auto per = [&](const at::Tensor &k) { return k.index_select(0, a.member); };
  at::Tensor grad = a.wd_uniform ? a.grad.add(a.flat, a.wd[0]) : a.grad + per(a.wd_dev) * a.flat;
  if (dense) {
    a.m.mul_(kBeta1).add_(grad, 1 - kBeta1);
    a.v.mul_(kBeta2).addcmul_(grad, grad, 1 - kBeta2);
  } else {
    at::Tensor onv = per(on);
    a.m = torch::where(onv, a.m * kBeta1 + grad * (1 - kBeta1), a.m);
    a.v = torch::where(onv, a.v * kBeta2 + grad * grad * (1 - kBeta2), a.v);
  }
  at::Tensor denom = (a.v.sqrt() / per(c.bc2s)).add_(kAdamEps);
  a.flat.sub_(a.m / denom * per(c.step));
  a.grad.zero_();
}

// Steps is what the host reads of an epoch's plan, checked whole, with the members' Adam
// step counts advanced over its training steps and Adam's bias corrections computed (see
// AdamCoef), K x S each.
struct Steps {
  std::vector<float> step, bc2s;
  std::vector<bool> any_train;  // S: some member trains at this step
  std::vector<bool> dense;      // S: every member trains on a full-width minibatch
};

// check_steps checks the host plan and advances the members' Adam step counts.
Steps check_steps(udocc_group *g, const int32_t *plan, const int32_t *counts, const int32_t *extra,
                  const uint8_t *flags, int64_t S, int64_t P) {
  if (g->n == 0) throw std::runtime_error("no data: call set_data first");
  if (S < 0 || P < 1) throw std::runtime_error("bad plan shape");
  const int64_t K = g->K;
  Steps p;
  p.any_train.assign(S, false);
  p.dense.assign(S, true);
  p.step.assign(K * S, 0.0f);
  p.bc2s.assign(K * S, 1.0f);
  // The whole plan is checked before any member's Adam step counter moves, so a refused
  // plan leaves the optimiser as it was.
  for (int64_t k = 0; k < K; ++k) {
    for (int64_t s = 0; s < S; ++s) {
      int32_t c = counts[k * S + s];
      int32_t e = extra == nullptr ? 0 : extra[k * S + s];
      if (c < 0 || e < 0 || c + e > P) throw std::runtime_error("plan: count out of range");
      const int32_t *row = plan + (k * S + s) * P;
      for (int64_t j = 0; j < P; ++j) {
        if (row[j] < 0 || row[j] > g->n) throw std::runtime_error("plan: row index out of range");
      }
    }
  }
  for (int64_t k = 0; k < K; ++k) {
    for (int64_t s = 0; s < S; ++s) {
      int32_t c = counts[k * S + s];
      int32_t e = extra == nullptr ? 0 : extra[k * S + s];
      bool trains = flags[k * S + s] != 0 && c > 0;
      if (trains) p.any_train[s] = true;
      if (!trains || c != P || e != 0) p.dense[s] = false;
      if (trains && g->adam_ready) {
        double t = static_cast<double>(++g->adam.t[k]);
        p.step[k * S + s] = static_cast<float>(g->adam.lr[k] / (1 - std::pow(kBeta1, t)));
        p.bc2s[k * S + s] = static_cast<float>(std::sqrt(1 - std::pow(kBeta2, t)));
      }
    }
  }
  return p;
}

// Plan holds one epoch's steps on the device.
struct Plan {
  at::Tensor idx;    // K x S x P int64
  at::Tensor valid;  // K x S x P float
  at::Tensor cnt;    // K x S float, clamped to >= 1
  at::Tensor train;  // K x S float: trains at this step
  at::Tensor upd;    // K x S float: trains with at least 2 rows (running statistics move)
  at::Tensor step, bc2s;  // K x S float: Adam's coefficients (see AdamCoef)
  std::vector<bool> any_train;  // S: some member trains at this step
  std::vector<bool> dense;      // S: every member trains on a full-width minibatch
  int64_t S = 0, P = 0;
};

// make_plan checks the host plan, copies it to the device once (sync: small pageable
// copies before the first step), and advances the members' Adam step counts over the
// epoch's training steps; Adam's bias corrections are computed here on the host.
Plan make_plan(udocc_group *g, const int32_t *plan, const int32_t *counts,
               const int32_t *extra, const uint8_t *flags, int64_t S, int64_t P) {
  Steps h = check_steps(g, plan, counts, extra, flags, S, P);
  const int64_t K = g->K;
  Plan p;
  p.S = S;
  p.P = P;
  p.any_train = std::move(h.any_train);
  p.dense = std::move(h.dense);
  p.step = torch::from_blob(h.step.data(), {K, S}, at::TensorOptions().dtype(at::kFloat)).to(g->dev);
  p.bc2s = torch::from_blob(h.bc2s.data(), {K, S}, at::TensorOptions().dtype(at::kFloat)).to(g->dev);
  if (g->dev.is_cpu()) {
    p.step = p.step.clone();
    p.bc2s = p.bc2s.clone();
  }
  auto cpu32 = at::TensorOptions().dtype(at::kInt);
  at::Tensor c = torch::from_blob(const_cast<int32_t *>(counts), {K, S}, cpu32).to(g->dev).to(at::kFloat);
  at::Tensor f = torch::from_blob(const_cast<uint8_t *>(flags), {K, S}, at::TensorOptions().dtype(at::kByte))
                     .to(g->dev).to(at::kFloat);
  // The host's rows are int32 (half the memory of a plan over a large table); index_select
  // wants int64, which the conversion makes as a tensor of the group's own.
  p.idx = torch::from_blob(const_cast<int32_t *>(plan), {K, S, P}, cpu32).to(g->dev).to(at::kLong);
  p.valid = (torch::arange(P, f32(g->dev)).view({1, 1, P}) < c.unsqueeze(2)).to(at::kFloat);
  p.train = f * (c > 0).to(at::kFloat);
  p.upd = f * (c > 1).to(at::kFloat);
  p.cnt = c.clamp_min(1);
  return p;
}

Batch batch_at(const Plan &p, int64_t s) {
  Batch b;
  b.m = p.valid.select(1, s).unsqueeze(2);
  b.cnt = p.cnt.select(1, s).view({-1, 1, 1});
  if (p.any_train[s]) b.upd = p.upd.select(1, s).unsqueeze(1);
  b.dense = p.dense[s];
  return b;
}

void adam_at(Adam &a, const Plan &p, int64_t s) {
  AdamCoef c{p.step.select(1, s), p.bc2s.select(1, s)};
  adam_step(a, c, p.train.select(1, s) > 0, p.dense[s]);
}

// materialise copies the n rows of t and the padding row to dev, as a (n+1) x d tensor.
at::Tensor materialise(const udocc::fast::Table &t, const torch::Device &dev) {
  at::Tensor h = torch::empty({t.n + 1, t.d}, at::TensorOptions().dtype(at::kFloat));
  t.read(0, t.n + 1, h.data_ptr<float>());
  return h.to(dev);
}

// data is the (n+1) x d tensor the libtorch path reads. A group that borrowed its table
// and was then switched to that path (set_reference, set_dist) copies it now, once: the
// order of those calls is the caller's, and no order is an error.
const at::Tensor &data(udocc_group *g) {
  if (!g->X.defined() && g->borrowed) g->X = materialise(g->borrowed->table, g->dev);
  return g->X;
}

at::Tensor gather_rows(udocc_group *g, const Plan &p, int64_t s) {
  at::Tensor idx = p.idx.select(1, s);
  return data(g).index_select(0, idx.reshape({-1})).view({g->K, p.P, -1});
}

// masked_quantile is numpy's linear quantile q[k] of each member's valid values.
at::Tensor masked_quantile(const at::Tensor &vals, const at::Tensor &m, const at::Tensor &cnt,
                           const at::Tensor &q) {
  at::Tensor big = torch::full_like(vals, std::numeric_limits<float>::infinity());
  at::Tensor sorted = std::get<0>(torch::where(m > 0, vals, big).sort(1));
  at::Tensor last = cnt - 1;
  at::Tensor pos = q.to(at::kFloat) * last;
  at::Tensor lo = pos.floor();
  at::Tensor hi = torch::minimum(lo + 1, last);
  at::Tensor vlo = sorted.gather(1, lo.to(at::kLong).unsqueeze(1)).squeeze(1);
  at::Tensor vhi = sorted.gather(1, hi.to(at::kLong).unsqueeze(1)).squeeze(1);
  return vlo + (pos - lo) * (vhi - vlo);
}

std::vector<at::Tensor *> params_of(std::vector<Layer> &a, std::vector<Layer> *b) {
  std::vector<at::Tensor *> ps;
  for (auto &l : a) ps.push_back(&l.w);
  if (b != nullptr) {
    for (auto &l : *b) ps.push_back(&l.w);
  }
  return ps;
}

// named lists every tensor of the state, stacked over members, with its saved name.
std::vector<std::pair<std::string, at::Tensor>> named(const udocc_group *g) {
  std::vector<std::pair<std::string, at::Tensor>> out;
  auto add = [&](const std::string &pre, const std::vector<Layer> &ls) {
    for (size_t i = 0; i < ls.size(); ++i) {
      std::string base = pre + "." + std::to_string(i);
      out.emplace_back(base + ".weight", ls[i].w);
      if (ls[i].bn()) {
        out.emplace_back(base + ".running_mean", ls[i].rm);
        out.emplace_back(base + ".running_var", ls[i].rv);
      }
    }
  };
  add("enc", g->enc);
  add("dec", g->dec);
  out.emplace_back("center", g->c);
  out.emplace_back("radius", g->R);
  return out;
}

void check_data(const float *x, int64_t m, int64_t d, int64_t want_d) {
  if (m < 1) throw std::runtime_error("data has no rows");
  if (d != want_d) {
    throw std::runtime_error("data has " + std::to_string(d) + " features, the model expects " +
                             std::to_string(want_d));
  }
  for (int64_t i = 0; i < m * d; ++i) {
    if (!std::isfinite(x[i])) {
      throw std::runtime_error("data: row " + std::to_string(i / d) + ", column " +
                               std::to_string(i % d) + " is not a finite number");
    }
  }
}

// pool_stream is a stream from libtorch's pool for a CUDA device, none for the CPU. The
// generic c10 interface needs no CUDA header, so the shim still builds against both kinds
// of libtorch.
c10::optional<c10::Stream> pool_stream(const torch::Device &dev) {
  if (!dev.is_cuda()) return c10::nullopt;
  c10::impl::VirtualGuardImpl impl(c10::DeviceType::CUDA);
  return impl.getStreamFromGlobalPool(dev.has_index() ? dev : impl.getDevice(), false);
}

// guard with a group runs f on the group's stream (see udocc_group::stream).
template <typename F>
char *guard(const udocc_group *g, F &&f) {
  return guard([&] {
    c10::OptionalStreamGuard on(g->stream);
    f();
  });
}

// reference_default is the path a new group takes: UDOCC_REFERENCE=1 selects libtorch's.
bool reference_default() {
  const char *v = std::getenv("UDOCC_REFERENCE");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

udocc_group *new_group(const std::vector<int64_t> &sizes, int64_t K, bool dec,
                       const torch::Device &dev, const uint64_t *seeds) {
  if (sizes.size() < 2) throw std::runtime_error("need at least an input and an output size");
  for (int64_t s : sizes) {
    if (s < 1) throw std::runtime_error("layer sizes must be positive");
  }
  if (K < 1) throw std::runtime_error("a group needs at least one member");
  std::vector<at::Generator> gens;
  for (int64_t k = 0; k < K; ++k) gens.push_back(at::make_generator<at::CPUGeneratorImpl>(seeds[k]));
  auto g = std::make_unique<udocc_group>();
  g->sizes = sizes;
  g->K = K;
  g->dev = dev;
  g->stream = pool_stream(dev);
  c10::OptionalStreamGuard on(g->stream);
  g->enc = make_layers(sizes, gens, dev);
  if (dec) {
    std::vector<int64_t> rev(sizes.rbegin(), sizes.rend());
    g->dec = make_layers(rev, gens, dev);
  }
  g->c = torch::zeros({K, sizes.back()}, f32(dev));
  g->R = torch::zeros({K}, f32(dev));
  g->reference = reference_default();
  return g.release();
}

// sync_running_stats averages the BatchNorm running statistics over the ranks of a
// data-parallel run at the end of an epoch. Within an epoch train mode normalises with
// batch statistics only, and the running update is linear in them, so one average at the
// end equals averaging after every step (up to float rounding).
void sync_running_stats(udocc_group *g) {
  if (!g->reducer) return;
  std::vector<at::Tensor> bufs;
  for (auto *ls : {&g->enc, &g->dec}) {
    for (auto &l : *ls) {
      if (!l.bn()) continue;
      bufs.push_back(l.rm);
      bufs.push_back(l.rv);
    }
  }
  udocc::mean_all(*g->reducer, bufs);
}

// global_mean is the mean of z (K x m x rep) over the rows of every rank of a
// data-parallel run: the all-reduced sums over the all-reduced row count.
at::Tensor global_mean(udocc_group *g, const at::Tensor &z) {
  at::Tensor s = z.sum(1).contiguous();
  at::Tensor n = torch::full({1}, static_cast<double>(z.size(1)), at::TensorOptions().dtype(at::kDouble).device(g->dev));
  g->reducer->sum(s);
  g->reducer->sum(n);
  return s / n.item<double>();
}



// fast says whether g runs on the fast path (udocc_fast.h): the CPU, unless asked not to.
// A rank of a data-parallel run takes the libtorch path, where its exchanges are hooked
// (the gradient all-reduce before Adam, the radii after each update).
bool fast(const udocc_group *g) { return g->dev.is_cpu() && !g->reference && !g->reducer; }

// nets describes member k's layers (the encoder, then the decoder when dec is set) as
// pointers into the stacked CPU tensors; a weight that Adam covers gets its slot in the
// flat gradient buffer.
std::vector<udocc::fast::Net> nets(udocc_group *g, bool dec) {
  std::vector<udocc::fast::Net> out(g->K);
  const float *flat = g->adam_ready ? g->adam.flat.data_ptr<float>() : nullptr;
  const int64_t T = g->adam_ready ? g->adam.flat.numel() : 0;
  auto add = [&](std::vector<Layer> &ls) {
    for (auto &l : ls) {
      if (!l.w.is_contiguous()) throw std::logic_error("udocc: a weight is not contiguous");
      const int64_t in = l.w.size(1), o = l.w.size(2);
      float *w = l.w.data_ptr<float>();
      float *grad = nullptr;
      if (flat != nullptr && w >= flat && w < flat + T) grad = g->adam.grad.data_ptr<float>() + (w - flat);
      for (int64_t k = 0; k < g->K; ++k) {
        udocc::fast::Layer f;
        f.w = w + k * in * o;
        f.gw = grad == nullptr ? nullptr : grad + k * in * o;
        if (l.bn()) {
          f.rm = l.rm.data_ptr<float>() + k * o;
          f.rv = l.rv.data_ptr<float>() + k * o;
        }
        f.in = in;
        f.out = o;
        out[k].push_back(f);
      }
    }
  };
  add(g->enc);
  if (dec) add(g->dec);
  return out;
}

// FastStep is the optimiser step of the fast path at step s of an epoch: Adam over the
// flat buffer, the same for every member that trains at s, with the gradients that the
// fast path wrote into the flat gradient buffer (a.grad, as in the libtorch path, so
// that whatever must see the gradients before Adam steps sees them in both paths).
struct FastStep {
  udocc_group *g;
  const Steps *steps;
  int64_t S;
  std::vector<int64_t> lens;

  static void run(void *ctx, int64_t k, int64_t s) {
    auto *f = static_cast<FastStep *>(ctx);
    Adam &a = f->g->adam;
    udocc::fast::AdamMember m;
    m.step = f->steps->step[k * f->S + s];
    m.bc2s = f->steps->bc2s[k * f->S + s];
    m.on = m.step != 0.0f;
    m.wd = static_cast<float>(a.wd[k]);
    udocc::fast::adam(a.flat.data_ptr<float>(), a.grad.data_ptr<float>(), a.m.data_ptr<float>(),
                      a.v.data_ptr<float>(), f->lens, f->g->K, k, m);
  }
};

FastStep fast_step(udocc_group *g, const Steps &steps, int64_t S) {
  FastStep f{g, &steps, S, {}};
  for (const at::Tensor &p : g->adam.params) f.lens.push_back(p.numel());
  for (const at::Tensor *t : {&g->adam.flat, &g->adam.grad, &g->adam.m, &g->adam.v}) {
    if (!t->is_contiguous()) throw std::logic_error("udocc: an Adam buffer is not contiguous");
  }
  return f;
}

// table is the fast path's view of g's data: the borrowed table, or g's own copy.
udocc::fast::Table table(const udocc_group *g) {
  if (g->borrowed) return g->borrowed->table;
  udocc::fast::Table t;
  t.x = g->X.data_ptr<float>();
  t.n = g->n;
  t.d = g->sizes.front();
  return t;
}

udocc::fast::Epoch fast_epoch(const udocc_group *g, const int32_t *plan, const int32_t *counts,
                              const int32_t *extra, const uint8_t *flags, int64_t S, int64_t P) {
  udocc::fast::Epoch e;
  e.X = table(g);
  e.n = g->n;
  e.d = g->sizes.front();
  e.rows = plan;
  e.counts = counts;
  e.extra = extra;
  e.flags = flags;
  e.K = g->K;
  e.S = S;
  e.P = P;
  return e;
}

void fast_pretrain_epoch(udocc_group *g, const int32_t *plan, const int32_t *counts,
                         const uint8_t *flags, int64_t S, int64_t P, double *loss) {
  Steps steps = check_steps(g, plan, counts, nullptr, flags, S, P);
  FastStep f = fast_step(g, steps, S);
  udocc::fast::pretrain_epoch(nets(g, true), fast_epoch(g, plan, counts, nullptr, flags, S, P),
                              &FastStep::run, &f, loss);
}

void fast_train_epoch(udocc_group *g, const int32_t *plan, const int32_t *counts, const int32_t *extra,
                      const uint8_t *flags, int64_t S, int64_t P, const uint8_t *soft, const double *nu,
                      const uint8_t *update_r, double *loss, float *train_dist) {
  Steps steps = check_steps(g, plan, counts, extra, flags, S, P);
  FastStep f = fast_step(g, steps, S);
  g->c = g->c.contiguous();
  g->R = g->R.contiguous();
  udocc::fast::Objective o;
  o.c = g->c.data_ptr<float>();
  o.rep = g->sizes.back();
  o.soft = soft;
  o.nu = nu;
  o.update_r = update_r;
  o.R = g->R.data_ptr<float>();
  if (!g->labels.empty()) {
    if (static_cast<int64_t>(g->labels.size()) != g->n) throw std::runtime_error("labels of another data's rows");
    o.label = g->labels.data();
    o.eta = static_cast<float>(g->eta);
  }
  udocc::fast::train_epoch(nets(g, false), fast_epoch(g, plan, counts, extra, flags, S, P), o,
                           &FastStep::run, &f, loss, train_dist);
}

void distances_of(udocc_group *g, const float *x, int64_t m, int64_t d, float *out, bool checked = false);
void reconstruction_of(udocc_group *g, const float *x, int64_t m, int64_t d, float *out, bool checked = false);
}  // namespace

namespace udocc {

char *guarded(const std::function<void()> &f) { return guard(f); }

void set_reducer(udocc_group *g, std::shared_ptr<Reducer> r) {
  g->reducer = std::move(r);
  if (g->adam_ready) g->adam.reduce = g->reducer.get();
}

std::vector<at::Tensor> state(udocc_group *g) {
  std::vector<at::Tensor> out;
  for (auto &kv : named(g)) out.push_back(kv.second.detach());
  return out;
}

}  // namespace udocc

extern "C" {

void udocc_free(char *p) { std::free(p); }

int udocc_error_code(const char *err) {
  if (err == nullptr) return UDOCC_OK;
  return block_of(err)->code;
}

void udocc_error_free(char *err) {
  if (err == nullptr) return;
  if (err != out_of_memory.msg) std::free(block_of(err));
}

void udocc_keep_freed_pages(void) { udocc_keep_pages(); }

void udocc_version(char *buf, size_t len) {
  std::snprintf(buf, len, "%d.%d.%d", TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR, TORCH_VERSION_PATCH);
}

int udocc_cuda_compiled(void) { return cuda_compiled() ? 1 : 0; }

int udocc_cuda_device_count(void) { return static_cast<int>(cuda_device_count()); }

char *udocc_check_device(const char *device) {
  return guard([&] { parse_device(device); });
}

void udocc_set_num_threads(int n) {
  if (n < 1) return;
  workers.store(n);
}

char *udocc_group_new(const int64_t *sizes, int nsizes, int k, int with_decoder,
                      const char *device, const uint64_t *seeds, udocc_group **out) {
  return guard([&] {
    torch::Device dev = parse_device(device);
    *out = new_group(std::vector<int64_t>(sizes, sizes + nsizes), k, with_decoder != 0, dev, seeds);
  });
}

char *udocc_group_from(const udocc_group *src, const int *src_members, int k, udocc_group **out) {
  return guard([&] {
    if (k < 1) throw std::runtime_error("a group needs at least one member");
    std::vector<int64_t> sel;
    for (int i = 0; i < k; ++i) {
      if (src_members[i] < 0 || src_members[i] >= src->K) throw std::runtime_error("member out of range");
      sel.push_back(src_members[i]);
    }
    if (src->stream) src->stream->synchronize();  // sync: src's queued work, before another stream reads it
    auto g = std::make_unique<udocc_group>();
    g->sizes = src->sizes;
    g->K = k;
    g->dev = src->dev;
    g->stream = pool_stream(g->dev);
    c10::OptionalStreamGuard on(g->stream);
    at::Tensor idx = torch::tensor(sel, at::kLong).to(src->dev);
    torch::NoGradGuard ng;
    for (const auto &l : src->enc) {
      Layer c;
      c.w = l.w.index_select(0, idx).clone().set_requires_grad(true);
      if (l.bn()) {
        c.rm = l.rm.index_select(0, idx).clone();
        c.rv = l.rv.index_select(0, idx).clone();
      }
      g->enc.push_back(std::move(c));
    }
    g->c = src->c.index_select(0, idx).clone();
    g->R = src->R.index_select(0, idx).clone();
    g->X = src->X;  // read-only, shared
    g->borrowed = src->borrowed;
    g->n = src->n;
    g->reducer = src->reducer;
    g->reference = src->reference;
    *out = g.release();
  });
}

void udocc_group_close(udocc_group *g) { delete g; }

char *udocc_group_set_data(udocc_group *g, const float *x, int64_t n, int64_t d) {
  return guard(g, [&] {
    check_data(x, n, d, g->sizes.front());
    at::Tensor h = torch::zeros({n + 1, d}, at::TensorOptions().dtype(at::kFloat));
    std::memcpy(h.data_ptr<float>(), x, sizeof(float) * n * d);
    g->borrowed.reset();
    g->X = h.to(g->dev);
    g->n = n;
  });
}

char *udocc_group_set_data_scaled(udocc_group *g, const float *x, int64_t n, int64_t d,
                                  const double *mean, const double *scale) {
  return guard(g, [&] {
    if (n < 1) throw std::runtime_error("data has no rows");
    if (d != g->sizes.front()) check_data(x, n, d, g->sizes.front());  // names the mismatch
    at::Tensor h = torch::zeros({n + 1, d}, at::TensorOptions().dtype(at::kFloat));
    float *p = h.data_ptr<float>();
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < d; ++j) {
        p[i * d + j] = static_cast<float>((static_cast<double>(x[i * d + j]) - mean[j]) / scale[j]);
      }
    }
    check_data(p, n, d, g->sizes.front());
    g->borrowed.reset();
    g->X = h.to(g->dev);
    g->n = n;
  });
}

char *udocc_group_borrow_data(udocc_group *g, const float *x, int64_t nx, int64_t d, const int32_t *rows,
                              int64_t n, const double *mean, const double *scale, int *borrowed) {
  return guard(g, [&] {
    if (n < 1 || nx < 1) throw std::runtime_error("data has no rows");
    if (d != g->sizes.front()) check_data(x, nx, d, g->sizes.front());  // names the mismatch
    if (rows == nullptr && n != nx) throw std::runtime_error("without a row list, n must be the matrix's rows");
    auto b = std::make_shared<Borrowed>();
    if (mean != nullptr) {
      for (int64_t r = 0; r < udocc::fast::kPeriod; ++r) {
        b->mean.insert(b->mean.end(), mean, mean + d);
        b->scale.insert(b->scale.end(), scale, scale + d);
      }
    }
    if (rows != nullptr) {
      b->rows.assign(rows, rows + n);
      for (int64_t i = 0; i < n; ++i) {
        if (rows[i] < 0 || rows[i] >= nx) throw std::runtime_error("row list: index out of range");
      }
    }
    udocc::fast::Table &t = b->table;
    t.x = x;
    t.n = n;
    t.d = d;
    t.rows = rows == nullptr ? nullptr : b->rows.data();
    t.mean = mean == nullptr ? nullptr : b->mean.data();
    t.scale = mean == nullptr ? nullptr : b->scale.data();
    udocc::fast::check_finite(t);
    g->X = at::Tensor();
    g->borrowed.reset();
    g->n = 0;
    if (fast(g)) {
      g->borrowed = std::move(b);
      *borrowed = 1;
    } else {
      g->X = materialise(t, g->dev);
      *borrowed = 0;
    }
    g->n = n;
  });
}

char *udocc_group_drop_data(udocc_group *g) {
  return guard(g, [&] {
    if (g->stream) g->stream->synchronize();  // sync: no queued work still reads it
    g->X = at::Tensor();
    g->borrowed.reset();
    g->n = 0;
  });
}

char *udocc_group_reset_adam(udocc_group *g, int phase, const double *lr, const double *wd) {
  return guard(g, [&] {
    if (phase == 0 && g->dec.empty()) throw std::runtime_error("this group has no decoder");
    adam_reset(g, params_of(g->enc, phase == 0 ? &g->dec : nullptr), lr, wd);
  });
}

char *udocc_group_pretrain_epoch(udocc_group *g, const int32_t *plan, const int32_t *counts,
                                 const uint8_t *flags, int64_t steps, int64_t width, double *loss,
                                 int64_t nloss) {
  return guard(g, [&] {
    udocc::check_len(nloss, g->K, "pretrain_epoch's losses");
    if (g->dec.empty()) throw std::runtime_error("this group has no decoder");
    if (!g->adam_ready) throw std::runtime_error("no optimizer: call reset_adam first");
    if (fast(g)) {
      fast_pretrain_epoch(g, plan, counts, flags, steps, width, loss);
      return;
    }
    Plan p = make_plan(g, plan, counts, nullptr, flags, steps, width);
    at::Tensor sum = torch::zeros({g->K}, f32(g->dev));
    at::Tensor nb = torch::zeros({g->K}, f32(g->dev));
    const double d = static_cast<double>(g->sizes.front());
    for (int64_t s = 0; s < p.S; ++s) {
      if (!p.any_train[s]) continue;
      Batch b = batch_at(p, s);
      at::Tensor x = gather_rows(g, p, s);
      at::Tensor xr = forward_train(g->dec, forward_train(g->enc, x, b), b);
      at::Tensor se = ((xr - x).pow(2) * b.m).sum({1, 2});
      at::Tensor per = se / (b.cnt.view({-1}) * d);  // MSE over the member's rows and features
      at::Tensor act = p.train.select(1, s);
      (per * act).sum().backward();
      adam_at(g->adam, p, s);
      sum.add_(per.detach() * act);
      nb.add_(act);
    }
    sync_running_stats(g);
    at::Tensor mean = (sum / nb.clamp_min(1)).to(at::kDouble).cpu();  // sync: the epoch's one copy back
    std::memcpy(loss, mean.data_ptr<double>(), sizeof(double) * g->K);
  });
}

char *udocc_group_init_center(udocc_group *g, double eps) {
  return guard(g, [&] {
    if (g->n == 0) throw std::runtime_error("no data: call set_data first");
    torch::NoGradGuard ng;
    at::Tensor c;
    if (fast(g)) {
      // The mean in double over chunks: no K x n x rep tensor.
      const int64_t rep = g->sizes.back();
      std::vector<double> sum(g->K * rep, 0.0);
      auto ns = nets(g, false);
      const udocc::fast::Table t = table(g);
      udocc::fast::sum_output(ns, t, sum.data());
      for (double &v : sum) v /= static_cast<double>(g->n);
      c = torch::tensor(sum, at::kDouble).view({g->K, rep}).to(at::kFloat);
    } else {
      at::Tensor z = forward_rows({&g->enc}, data(g).narrow(0, 0, g->n));
      c = g->reducer ? global_mean(g, z) : z.mean(1);
    }
    at::Tensor small = c.abs() < eps;
    c = torch::where(small & (c < 0), torch::full_like(c, -eps), c);
    c = torch::where(small & (c > 0), torch::full_like(c, eps), c);
    g->c = c;
  });
}

char *udocc_group_train_epoch(udocc_group *g, const int32_t *plan, const int32_t *counts,
                              const int32_t *extra, const uint8_t *flags, int64_t steps,
                              int64_t width, const uint8_t *soft, const double *nu,
                              const uint8_t *update_r, double *loss, int64_t nloss,
                              float *train_dist, int64_t ndist) {
  return guard(g, [&] {
    udocc::check_len(nloss, g->K, "train_epoch's losses");
    if (train_dist != nullptr) udocc::check_len(ndist, g->K * g->n, "train_epoch's distances");
    if (!g->adam_ready) throw std::runtime_error("no optimizer: call reset_adam first");
    if (fast(g)) {
      fast_train_epoch(g, plan, counts, extra, flags, steps, width, soft, nu, update_r, loss, train_dist);
      return;
    }
    Plan p = make_plan(g, plan, counts, extra, flags, steps, width);
    const int64_t K = g->K;
    auto cpu = at::TensorOptions();
    // sync: the objective (and below the previous train distances) go over before the first step.
    at::Tensor sb = torch::from_blob(const_cast<uint8_t *>(soft), {K}, cpu.dtype(at::kByte)).to(g->dev) > 0;
    at::Tensor nut = torch::from_blob(const_cast<double *>(nu), {K}, cpu.dtype(at::kDouble)).to(g->dev).to(at::kFloat);
    at::Tensor upr = torch::from_blob(const_cast<uint8_t *>(update_r), {K}, cpu.dtype(at::kByte)).to(g->dev) > 0;
    // Read from the host arrays: a device reduction here would be a host sync.
    const bool any_sb = std::any_of(soft, soft + K, [](uint8_t v) { return v != 0; });
    const bool any_upr = std::any_of(update_r, update_r + K, [](uint8_t v) { return v != 0; });
    at::Tensor inv_nu = torch::where(sb, 1.0 / nut.clamp_min(1e-12), torch::zeros_like(nut));
    at::Tensor dist_out;
    if (train_dist != nullptr) {
      dist_out = torch::zeros({K, g->n + 1}, f32(g->dev));  // column n takes the padding
      dist_out.narrow(1, 0, g->n).copy_(torch::from_blob(train_dist, {K, g->n}, cpu.dtype(at::kFloat)));
    }
    at::Tensor sum = torch::zeros({K}, f32(g->dev));
    at::Tensor nb = torch::zeros({K}, f32(g->dev));
    at::Tensor lab;  // the rows' labels and the padding's 0, where Deep SAD's loss is on
    if (!g->labels.empty()) {
      if (static_cast<int64_t>(g->labels.size()) != g->n) throw std::runtime_error("labels of another data's rows");
      std::vector<float> y(g->labels.begin(), g->labels.end());
      y.push_back(0);
      lab = torch::from_blob(y.data(), {g->n + 1}, cpu.dtype(at::kFloat)).to(g->dev, false, true);
    }
    for (int64_t s = 0; s < p.S; ++s) {
      Batch b = batch_at(p, s);
      at::Tensor x = gather_rows(g, p, s);
      if (!p.any_train[s]) {
        if (dist_out.defined()) {
          torch::NoGradGuard ng;
          at::Tensor dist = (forward_train(g->enc, x, b) - g->c.unsqueeze(1)).pow(2).sum(2);
          dist_out.scatter_(1, p.idx.select(1, s), dist);
        }
        continue;
      }
      at::Tensor dist = (forward_train(g->enc, x, b) - g->c.unsqueeze(1)).pow(2).sum(2);  // K x P
      at::Tensor m = b.m.squeeze(2);
      at::Tensor cnt = b.cnt.view({-1});
      at::Tensor per = (dist * m).sum(1) / cnt;  // one-class loss, Eq. (2)
      if (lab.defined()) {
        // Deep SAD (Ruff et al. 2020, Eq. (3)): a labelled normal row's term eta·d, a
        // labelled anomaly's eta / (d + eps); unlabelled rows keep d.
        at::Tensor y = lab.index_select(0, p.idx.select(1, s).reshape({-1})).view_as(dist);
        at::Tensor term = torch::where(y > 0, g->eta * dist, torch::where(y < 0, g->eta / (dist + udocc::fast::kSadEps), dist));
        per = (term * m).sum(1) / cnt;
      }
      if (any_sb) {
        at::Tensor r2 = g->R * g->R;  // soft-boundary loss in Ruff's scaling, Eq. (1) / nu
        at::Tensor hinge = (torch::relu(dist - r2.unsqueeze(1)) * m).sum(1) / cnt;
        per = torch::where(sb, r2 + inv_nu * hinge, per);
      }
      at::Tensor act = p.train.select(1, s);
      (per * act).sum().backward();
      adam_at(g->adam, p, s);
      at::Tensor dd = dist.detach();
      if (dist_out.defined()) dist_out.scatter_(1, p.idx.select(1, s), dd);
      if (any_upr) {
        at::Tensor r = masked_quantile(dd.sqrt(), m, cnt, 1 - nut);
        if (g->reducer) udocc::mean_all(*g->reducer, {r});  // data-parallel: the ranks' radii averaged
        g->R = torch::where(upr & (act > 0), r, g->R);
      }
      sum.add_(per.detach() * act);
      nb.add_(act);
    }
    sync_running_stats(g);
    at::Tensor mean = (sum / nb.clamp_min(1)).to(at::kDouble).cpu();  // sync: end of the epoch
    std::memcpy(loss, mean.data_ptr<double>(), sizeof(double) * K);
    if (dist_out.defined()) {
      at::Tensor h = dist_out.narrow(1, 0, g->n).contiguous().cpu();  // sync: one K x n copy
      std::memcpy(train_dist, h.data_ptr<float>(), sizeof(float) * K * g->n);
    }
  });
}

char *udocc_group_set_labels(udocc_group *g, const int8_t *labels, int64_t n, double eta) {
  return guard(g, [&] {
    if (n == 0) {
      g->labels.clear();
      g->eta = 0;
      return;
    }
    if (n != g->n) throw std::runtime_error("labels: " + std::to_string(n) + " for " + std::to_string(g->n) + " data rows");
    if (!(eta > 0)) throw std::runtime_error("labels: eta must be positive");
    for (int64_t i = 0; i < n; ++i) {
      if (labels[i] < -1 || labels[i] > 1) throw std::runtime_error("labels: a label other than -1, 0 or 1");
    }
    g->labels.assign(labels, labels + n);
    g->eta = eta;
  });
}

char *udocc_group_distances_of(udocc_group *g, const float *x, int64_t m, int64_t d, float *out, int64_t len) {
  return guard(g, [&] {
    udocc::check_len(len, g->K * m, "distances_of");
    distances_of(g, x, m, d, out);
  });
}

char *udocc_group_embeddings_of(udocc_group *g, const float *x, int64_t m, int64_t d, float *out, int64_t len) {
  return guard(g, [&] {
    udocc::check_len(len, g->K * m * g->sizes.back(), "embeddings_of");
    check_data(x, m, d, g->sizes.front());
    torch::NoGradGuard ng;
    at::Tensor xt = torch::from_blob(const_cast<float *>(x), {m, d}, at::TensorOptions().dtype(at::kFloat)).to(g->dev);
    at::Tensor e = forward_rows({&g->enc}, xt).contiguous().cpu();
    std::memcpy(out, e.data_ptr<float>(), sizeof(float) * e.numel());
  });
}

char *udocc_group_residuals_of(udocc_group *g, const float *x, int64_t m, int64_t d, float *out, int64_t len) {
  return guard(g, [&] {
    udocc::check_len(len, g->K * m * g->sizes.front(), "residuals_of");
    check_data(x, m, d, g->sizes.front());
    if (g->dec.empty()) throw std::runtime_error("this group has no decoder");
    torch::NoGradGuard ng;
    at::Tensor xt = torch::from_blob(const_cast<float *>(x), {m, d}, at::TensorOptions().dtype(at::kFloat)).to(g->dev);
    at::Tensor e = (xt.unsqueeze(0) - forward_rows({&g->enc, &g->dec}, xt)).contiguous().cpu();
    std::memcpy(out, e.data_ptr<float>(), sizeof(float) * e.numel());
  });
}

char *udocc_group_set_reconstruction_scale(udocc_group *g, const float *center, const float *scale) {
  return guard(g, [&] {
    if (g->dec.empty()) throw std::runtime_error("this group has no decoder");
    if ((center == nullptr) != (scale == nullptr)) {
      throw std::runtime_error("a reconstruction scale needs both a center and a scale");
    }
    if (scale == nullptr) {
      g->rc = at::Tensor();
      g->rs = at::Tensor();
      return;
    }
    const int64_t d = g->sizes.front();
    for (int64_t i = 0; i < g->K * d; ++i) {
      if (!(scale[i] > 0) || !std::isfinite(scale[i])) {
        throw std::runtime_error("reconstruction scale " + std::to_string(scale[i]) + " of member " +
                                 std::to_string(i / d) + ", feature " + std::to_string(i % d + 1) +
                                 " is not finite and positive");
      }
      if (!std::isfinite(center[i])) {
        throw std::runtime_error("reconstruction center " + std::to_string(center[i]) + " of member " +
                                 std::to_string(i / d) + ", feature " + std::to_string(i % d + 1) +
                                 " is not finite");
      }
    }
    const auto opts = at::TensorOptions().dtype(at::kFloat);
    g->rc = torch::from_blob(const_cast<float *>(center), {g->K, d}, opts).clone();
    g->rs = torch::from_blob(const_cast<float *>(scale), {g->K, d}, opts).clone();
  });
}

char *udocc_group_standardise_output(udocc_group *g, const float *center, const float *s) {
  return guard(g, [&] {
    const int64_t rep = g->sizes.back();
    for (int64_t i = 0; i < g->K * rep; ++i) {
      if (!(s[i] > 0) || !std::isfinite(s[i])) {
        throw std::runtime_error("output scale " + std::to_string(s[i]) + " of member " +
                                 std::to_string(i / rep) + " is not finite and positive");
      }
      if (center != nullptr && !std::isfinite(center[i])) {
        throw std::runtime_error("output center " + std::to_string(center[i]) + " of member " +
                                 std::to_string(i / rep) + " is not finite");
      }
    }
    torch::NoGradGuard ng;
    const auto opts = at::TensorOptions().dtype(at::kFloat);
    at::Tensor st = torch::from_blob(const_cast<float *>(s), {g->K, rep}, opts).clone().to(g->dev);
    at::Tensor c = g->c;
    if (center != nullptr) c = torch::from_blob(const_cast<float *>(center), {g->K, rep}, opts).clone().to(g->dev);
    // In place: the last layer's weight may be a view into Adam's flat buffer, which the
    // fast path reads.
    g->enc.back().w.detach().div_(st.unsqueeze(1));
    g->c = (c / st).contiguous();
  });
}

char *udocc_group_distances(udocc_group *g, float *out, int64_t len) {
  return guard(g, [&] {
    udocc::check_len(len, g->K * g->n, "distances");
    if (g->n == 0) throw std::runtime_error("no data: call set_data first");
    if (fast(g)) {
      g->c = g->c.contiguous();
      auto ns = nets(g, false);
      udocc::fast::distances(ns, g->c.data_ptr<float>(), table(g), out);
      return;
    }
    torch::NoGradGuard ng;
    // Rows go through in chunks so K x chunk x width stays near 2^24 floats.
    int64_t widest = *std::max_element(g->sizes.begin(), g->sizes.end());
    int64_t chunk = std::max<int64_t>(1024, (int64_t{1} << 24) / (g->K * widest));
    at::Tensor dist = torch::empty({g->K, g->n}, f32(g->dev));
    for (int64_t i = 0; i < g->n; i += chunk) {
      int64_t len = std::min(chunk, g->n - i);
      at::Tensor z = forward_rows({&g->enc}, data(g).narrow(0, i, len));
      dist.narrow(1, i, len).copy_((z - g->c.unsqueeze(1)).pow(2).sum(2));
    }
    at::Tensor h = dist.cpu();  // sync: the one device-to-host copy
    std::memcpy(out, h.data_ptr<float>(), sizeof(float) * g->K * g->n);
  });
}

}  // extern "C"

// The helpers below have internal linkage: inside the extern "C" block they were global
// C names (reconstruction, occlusions, ...) that a host's own could clash with.
namespace {

// rec_center and rec_scale are member k's robust reconstruction center and scale on the
// CPU (d each), or null when its error is the squared one.
const float *rec_center(const udocc_group *g, int64_t k) {
  return g->rs.defined() ? g->rc.data_ptr<float>() + k * g->sizes.front() : nullptr;
}
const float *rec_scale(const udocc_group *g, int64_t k) {
  return g->rs.defined() ? g->rs.data_ptr<float>() + k * g->sizes.front() : nullptr;
}

// rec_centers and rec_scales are rec_center and rec_scale of the members from..to-1.
std::vector<const float *> rec_centers(const udocc_group *g, int64_t from, int64_t to) {
  std::vector<const float *> out;
  for (int64_t k = from; k < to; ++k) out.push_back(rec_center(g, k));
  return out;
}
std::vector<const float *> rec_scales(const udocc_group *g, int64_t from, int64_t to) {
  std::vector<const float *> out;
  for (int64_t k = from; k < to; ++k) out.push_back(rec_scale(g, k));
  return out;
}

// reconstruction writes the K x m eval-mode reconstruction errors ||x - dec(enc(x))||^2 / d
// of the rows of x (m x d, shared by all members) into out, in chunks as distances does;
// with g->rs set, the robust error (udocc_group_set_reconstruction_scale) instead.
void reconstruction(udocc_group *g, const at::Tensor &x, float *out) {
  if (g->dec.empty()) throw std::runtime_error("this group has no decoder");
  if (fast(g)) {
    at::Tensor xc = x.contiguous();
    udocc::fast::reconstruction(nets(g, true), udocc::fast::Table::of(xc.data_ptr<float>(), xc.size(0), xc.size(1)),
                                out, rec_centers(g, 0, g->K), rec_scales(g, 0, g->K));
    return;
  }
  torch::NoGradGuard ng;
  const int64_t m = x.size(0);
  const double d = static_cast<double>(g->sizes.front());
  int64_t widest = *std::max_element(g->sizes.begin(), g->sizes.end());
  int64_t chunk = std::max<int64_t>(1024, (int64_t{1} << 24) / (g->K * widest));
  at::Tensor err = torch::empty({g->K, m}, f32(g->dev));
  at::Tensor rc, rs;
  if (g->rs.defined()) rc = g->rc.to(g->dev).unsqueeze(1), rs = g->rs.to(g->dev).unsqueeze(1);
  for (int64_t i = 0; i < m; i += chunk) {
    int64_t len = std::min(chunk, m - i);
    at::Tensor xi = x.narrow(0, i, len);
    at::Tensor xr = forward_rows({&g->enc, &g->dec}, xi);  // K x len x d
    if (rs.defined()) {
      err.narrow(1, i, len).copy_(((xi.unsqueeze(0) - xr - rc) / rs).pow(2).log1p().sum(2) / d);
    } else {
      err.narrow(1, i, len).copy_((xr - xi.unsqueeze(0)).pow(2).sum(2) / d);
    }
  }
  at::Tensor h = err.cpu();  // sync: the one device-to-host copy
  std::memcpy(out, h.data_ptr<float>(), sizeof(float) * g->K * m);
}

// distances_of writes the K x m eval-mode squared distances of the m x d rows x (not the
// group's data) into out: udocc_group_distances_of's work, and udocc_groups_score's. The
// rows are checked (check_data) unless checked says a caller has.
void distances_of(udocc_group *g, const float *x, int64_t m, int64_t d, float *out, bool checked) {
  if (!checked) check_data(x, m, d, g->sizes.front());
  if (fast(g)) {
    // Read-only: scoring calls on one group may run at once (udocc_torch.h).
    const at::Tensor c = g->c.contiguous();
    udocc::fast::distances(nets(g, false), c.data_ptr<float>(), udocc::fast::Table::of(x, m, d), out);
    return;
  }
  torch::NoGradGuard ng;
  at::Tensor xt = torch::from_blob(const_cast<float *>(x), {m, d}, at::TensorOptions().dtype(at::kFloat)).to(g->dev);
  at::Tensor dist = (forward_rows({&g->enc}, xt) - g->c.unsqueeze(1)).pow(2).sum(2).contiguous().cpu();
  std::memcpy(out, dist.data_ptr<float>(), sizeof(float) * g->K * m);
}

// reconstruction_of writes the K x m reconstruction errors of the m x d rows x (not the
// group's data) into out: udocc_group_reconstruction_of's work, and udocc_groups_score's.
void reconstruction_of(udocc_group *g, const float *x, int64_t m, int64_t d, float *out, bool checked) {
  if (!checked) check_data(x, m, d, g->sizes.front());
  at::Tensor xt = torch::from_blob(const_cast<float *>(x), {m, d}, at::TensorOptions().dtype(at::kFloat)).clone().to(g->dev);
  reconstruction(g, xt, out);
}

}  // namespace

extern "C" {

char *udocc_group_reconstruction(udocc_group *g, float *out, int64_t len) {
  return guard(g, [&] {
    udocc::check_len(len, g->K * g->n, "reconstruction");
    if (g->n == 0) throw std::runtime_error("no data: call set_data first");
    if (fast(g)) {
      if (g->dec.empty()) throw std::runtime_error("this group has no decoder");
      udocc::fast::reconstruction(nets(g, true), table(g), out, rec_centers(g, 0, g->K), rec_scales(g, 0, g->K));
      return;
    }
    reconstruction(g, data(g).narrow(0, 0, g->n), out);
  });
}

char *udocc_group_reconstruction_member(udocc_group *g, int k, float *out, int64_t len) {
  return guard(g, [&] {
    udocc::check_len(len, g->n, "reconstruction_member");
    if (g->n == 0) throw std::runtime_error("no data: call set_data first");
    if (k < 0 || k >= g->K) throw std::runtime_error("member out of range");
    if (g->dec.empty()) throw std::runtime_error("this group has no decoder");
    if (fast(g)) {
      udocc::fast::reconstruction({nets(g, true)[k]}, table(g), out, rec_centers(g, k, k + 1), rec_scales(g, k, k + 1));
      return;
    }
    std::vector<float> all(g->K * g->n);
    reconstruction(g, data(g).narrow(0, 0, g->n), all.data());
    std::memcpy(out, all.data() + k * g->n, sizeof(float) * g->n);
  });
}

char *udocc_group_reconstruction_of(udocc_group *g, const float *x, int64_t m, int64_t d, float *out, int64_t len) {
  return guard(g, [&] {
    udocc::check_len(len, g->K * m, "reconstruction_of");
    reconstruction_of(g, x, m, d, out);
  });
}

char *udocc_groups_score(udocc_group *const *dist, int64_t nd, udocc_group *const *rec, int64_t nr,
                         const float *x, int64_t m, int64_t d, float *dist_out, float *rec_out) {
  return guard([&] {
    // The rows are checked once (every value finite, d the groups' input width), not once
    // a group: the check read every value ten times a request.
    for (int64_t i = 0; i < nd + nr; ++i) {
      const udocc_group *g = i < nd ? dist[i] : rec[i - nd];
      if (g->sizes.front() != d) check_data(x, m, d, g->sizes.front());
    }
    if (nd + nr > 0) check_data(x, m, d, d);
    for (int64_t i = 0; i < nd; ++i) {
      c10::OptionalStreamGuard on(dist[i]->stream);
      distances_of(dist[i], x, m, d, dist_out, true);
      dist_out += dist[i]->K * m;
    }
    for (int64_t i = 0; i < nr; ++i) {
      c10::OptionalStreamGuard on(rec[i]->stream);
      reconstruction_of(rec[i], x, m, d, rec_out, true);
      rec_out += rec[i]->K * m;
    }
  });
}

}  // extern "C"

namespace {

// distance_attributions is part 0 of udocc_group_attributions_of: for each quadrature
// point the path rows, one copy per member (K x len x d, so that each member's gradient is
// its own), go forward and back once; the gradients are averaged and multiplied by x - b.
void distance_attributions(udocc_group *g, const at::Tensor &xt, const at::Tensor &bt,
                           const std::vector<float> &alphas, float *out) {
  const int64_t m = xt.size(0), d = xt.size(1), K = g->K;
  int64_t widest = *std::max_element(g->sizes.begin(), g->sizes.end());
  int64_t chunk = std::max<int64_t>(1, (int64_t{1} << 22) / (K * widest));
  torch::AutoGradMode on(true);
  at::Tensor c = g->c.unsqueeze(1);
  for (int64_t i = 0; i < m; i += chunk) {
    const int64_t len = std::min(chunk, m - i);
    at::Tensor diff = xt.narrow(0, i, len) - bt;  // len x d
    at::Tensor acc = torch::zeros({K, len, d}, f32(g->dev));
    for (float a : alphas) {
      at::Tensor p = (bt + a * diff).unsqueeze(0).expand({K, len, d}).clone().set_requires_grad(true);
      at::Tensor dist = (forward_eval(g->enc, p) - c).pow(2).sum(2);
      acc.add_(torch::autograd::grad({dist.sum()}, {p})[0]);
    }
    at::Tensor att = (acc * diff.unsqueeze(0) / static_cast<double>(alphas.size())).contiguous().cpu();
    auto h = att.accessor<float, 3>();
    for (int64_t k = 0; k < K; ++k) {
      for (int64_t r = 0; r < len; ++r) {
        std::memcpy(out + (k * m + i + r) * d, &h[k][r][0], sizeof(float) * d);
      }
    }
  }
}

// residual_terms is feature j's term of each member's reconstruction error of the rows
// x (N x d) whose encodings are z (K x N x rep): K x N x d, summing over j to the error
// (the robust one where g->rs is set).
at::Tensor residual_terms(const udocc_group *g, const at::Tensor &x, const at::Tensor &z) {
  const double d = static_cast<double>(g->sizes.front());
  at::Tensor e = x.unsqueeze(0) - forward_eval(g->dec, z);
  if (g->rs.defined()) {
    return ((e - g->rc.to(g->dev).unsqueeze(1)) / g->rs.to(g->dev).unsqueeze(1)).pow(2).log1p() / d;
  }
  return e.pow(2) / d;
}

// reconstruction_terms is residual_terms of the rows x.
at::Tensor reconstruction_terms(const udocc_group *g, const at::Tensor &x) {
  return residual_terms(g, x, forward_eval(g->enc, x));
}

// after_first is forward_eval of layers given the first layer's product h = x W_0
// (K x N x out): that layer's BatchNorm and activation, then the other layers.
at::Tensor after_first(const std::vector<Layer> &layers, at::Tensor h) {
  const Layer &l = layers.front();
  if (l.bn()) {
    h = (h - l.rm.unsqueeze(1)) * torch::rsqrt(l.rv.unsqueeze(1) + kBNEps);
    h = torch::leaky_relu(h, kLeaky);
  }
  if (layers.size() == 1) return h;
  return forward_eval(std::vector<Layer>(layers.begin() + 1, layers.end()), h);
}

// occlusions is parts 2 (rec false: the distances) and 3 (rec true: the reconstruction
// errors) of udocc_group_attributions_of: each row is copied d times, copy j with feature
// j set to b_j, and the score of the row less that of each copy is written, in chunks.
// The first layer is linear, so a copy's product with it is the row's plus
// (b_j - x_j) times the layer's row j: the d copies cost no product with the first layer.
void occlusions(udocc_group *g, const at::Tensor &xt, const at::Tensor &bt, bool rec, float *out) {
  torch::NoGradGuard ng;
  const int64_t m = xt.size(0), d = xt.size(1), K = g->K;
  int64_t widest = *std::max_element(g->sizes.begin(), g->sizes.end());
  int64_t chunk = std::max<int64_t>(1, (int64_t{1} << 22) / (K * widest * (d + 1)));
  const at::Tensor &w0 = g->enc.front().w;  // K x d x out
  at::Tensor c = g->c.unsqueeze(1);
  for (int64_t i = 0; i < m; i += chunk) {
    const int64_t len = std::min(chunk, m - i);
    at::Tensor x = xt.narrow(0, i, len);
    at::Tensor p = matmul_eval(x, w0);  // K x len x out
    at::Tensor pj = (p.unsqueeze(2) + (bt - x).unsqueeze(0).unsqueeze(3) * w0.unsqueeze(1)).view({K, len * d, -1});
    at::Tensor full, part;  // K x len, K x len x d
    if (rec) {
      at::Tensor xo = x.unsqueeze(1).repeat({1, d, 1});  // len x d x d
      xo.diagonal(0, 1, 2).copy_(bt.expand({len, d}));
      full = residual_terms(g, x, after_first(g->enc, p)).sum(2);
      part = residual_terms(g, xo.view({len * d, d}), after_first(g->enc, pj)).sum(2).view({K, len, d});
    } else {
      full = (after_first(g->enc, p) - c).pow(2).sum(2);
      part = (after_first(g->enc, pj) - c).pow(2).sum(2).view({K, len, d});
    }
    at::Tensor att = (full.unsqueeze(2) - part).contiguous().cpu();
    auto h = att.accessor<float, 3>();
    for (int64_t k = 0; k < K; ++k) {
      for (int64_t r = 0; r < len; ++r) {
        std::memcpy(out + (k * m + i + r) * d, &h[k][r][0], sizeof(float) * d);
      }
    }
  }
}

}  // namespace

extern "C" {

char *udocc_group_attributions_of(udocc_group *g, const float *x, int64_t m, int64_t d,
                                  const float *b, const float *alphas, int64_t steps, int part,
                                  float *out, int64_t len) {
  return guard(g, [&] {
    check_data(x, m, d, g->sizes.front());
    if (b == nullptr) throw std::runtime_error("attributions need a baseline row");
    check_data(b, 1, d, g->sizes.front());
    if (out == nullptr || len != g->K * m * d) {
      throw std::runtime_error("attributions need " + std::to_string(g->K * m * d) + " floats (" +
                               std::to_string(g->K) + " members x " + std::to_string(m) + " rows x " +
                               std::to_string(d) + " features), the buffer has " + std::to_string(len));
    }
    const auto opts = at::TensorOptions().dtype(at::kFloat);
    at::Tensor xt = torch::from_blob(const_cast<float *>(x), {m, d}, opts).to(g->dev);
    at::Tensor bt = torch::from_blob(const_cast<float *>(b), {1, d}, opts).to(g->dev);
    switch (part) {
      case 0: {
        if (steps < 1 || alphas == nullptr) throw std::runtime_error("distance attributions need at least one path point");
        std::vector<float> as(alphas, alphas + steps);
        for (float a : as) {
          if (!(a >= 0 && a <= 1)) throw std::runtime_error("path point " + std::to_string(a) + " is not in [0, 1]");
        }
        distance_attributions(g, xt, bt, as, out);
        return;
      }
      case 1: {
        if (g->dec.empty()) throw std::runtime_error("this group has no decoder");
        torch::NoGradGuard ng;
        int64_t widest = *std::max_element(g->sizes.begin(), g->sizes.end());
        int64_t chunk = std::max<int64_t>(1, (int64_t{1} << 22) / (g->K * widest));
        at::Tensor base = reconstruction_terms(g, bt);  // K x 1 x d
        for (int64_t i = 0; i < m; i += chunk) {
          const int64_t rows = std::min(chunk, m - i);
          at::Tensor att = (reconstruction_terms(g, xt.narrow(0, i, rows)) - base).contiguous().cpu();
          auto h = att.accessor<float, 3>();
          for (int64_t k = 0; k < g->K; ++k) {
            for (int64_t r = 0; r < rows; ++r) {
              std::memcpy(out + (k * m + i + r) * d, &h[k][r][0], sizeof(float) * d);
            }
          }
        }
        return;
      }
      case 2: {
        occlusions(g, xt, bt, false, out);
        return;
      }
      case 3: {
        if (g->dec.empty()) throw std::runtime_error("this group has no decoder");
        occlusions(g, xt, bt, true, out);
        return;
      }
      default:
        throw std::runtime_error("attribution part " + std::to_string(part) +
                                 ": want 0 or 2 (distance), 1 or 3 (reconstruction)");
    }
  });
}

char *udocc_group_get_center(const udocc_group *g, float *out, int64_t len) {
  return guard(g, [&] {
    udocc::check_len(len, g->c.numel(), "get_center");
    at::Tensor h = g->c.contiguous().cpu();
    std::memcpy(out, h.data_ptr<float>(), sizeof(float) * h.numel());
  });
}

char *udocc_group_get_radius(const udocc_group *g, float *out, int64_t len) {
  return guard(g, [&] {
    udocc::check_len(len, g->R.numel(), "get_radius");
    at::Tensor h = g->R.contiguous().cpu();
    std::memcpy(out, h.data_ptr<float>(), sizeof(float) * h.numel());
  });
}

char *udocc_group_set_radius(udocc_group *g, const float *r, int64_t len) {
  return guard(g, [&] {
    udocc::check_len(len, g->K, "set_radius");
    // clone: on the CPU .to() would alias the caller's buffer, which is not ours to keep.
    g->R = torch::from_blob(const_cast<float *>(r), {g->K}, at::TensorOptions().dtype(at::kFloat)).clone().to(g->dev);
  });
}

char *udocc_group_get_param(const udocc_group *g, int k, const char *name, float *out, int64_t len,
                            int64_t *n_out) {
  return guard(g, [&] {
    if (k < 0 || k >= g->K) throw std::runtime_error("member out of range");
    for (const auto &kv : named(g)) {
      if (kv.first != name) continue;
      at::Tensor h = kv.second.detach()[k].contiguous().cpu();
      *n_out = h.numel();
      if (h.numel() > len) throw std::runtime_error("buffer too small for " + kv.first);
      std::memcpy(out, h.data_ptr<float>(), sizeof(float) * h.numel());
      return;
    }
    throw coded_error(UDOCC_ERR_NO_TENSOR, std::string("no tensor named ") + name);
  });
}

char *udocc_group_serialize(const udocc_group *g, int k, char **out, int64_t *len) {
  return guard(g, [&] {
    if (k < 0 || k >= g->K) throw std::runtime_error("member out of range");
    torch::serialize::OutputArchive ar;
    ar.write("format", torch::tensor({g->rs.defined() ? kFormatRobust : kFormat}, at::kLong));
    ar.write("sizes", torch::tensor(g->sizes, at::kLong));
    ar.write("has_decoder", torch::tensor({static_cast<int64_t>(!g->dec.empty())}, at::kLong));
    // clone: a view of member k would serialise the whole stacked storage, every member.
    for (const auto &kv : named(g)) ar.write(kv.first, kv.second.detach()[k].clone().cpu());
    if (g->rs.defined()) {
      ar.write("rec_center", g->rc[k].clone());
      ar.write("rec_scale", g->rs[k].clone());
    }
    // Into memory, never into a file: libtorch's file writer throws again from its
    // destructor when a write fails (a full disk), which ends the process. The host
    // writes the bytes and reports the disk's error.
    std::ostringstream os;
    ar.save_to(os);
    const std::string bytes = os.str();
    char *p = static_cast<char *>(std::malloc(bytes.empty() ? 1 : bytes.size()));
    if (p == nullptr) throw std::bad_alloc();
    std::memcpy(p, bytes.data(), bytes.size());
    *out = p;
    *len = static_cast<int64_t>(bytes.size());
  });
}

char *udocc_group_extract(const udocc_group *g, int k, udocc_group **out) {
  return guard(g, [&] {
    if (k < 0 || k >= g->K) throw std::runtime_error("member out of range");
    if (g->stream) g->stream->synchronize();  // g's queued work, before another stream reads it
    uint64_t seed = 0;
    std::unique_ptr<udocc_group> ng(new_group(g->sizes, 1, !g->dec.empty(), g->dev, &seed));
    c10::OptionalStreamGuard on(ng->stream);
    torch::NoGradGuard guard_grad;
    auto from = named(g), to = named(ng.get());
    for (size_t i = 0; i < to.size(); ++i) to[i].second[0].copy_(from[i].second.detach()[k]);
    if (g->rs.defined()) {
      const int64_t d = g->sizes.front();
      ng->rc = g->rc[k].to(at::kFloat).reshape({1, d}).contiguous().clone();
      ng->rs = g->rs[k].to(at::kFloat).reshape({1, d}).contiguous().clone();
    }
    *out = ng.release();
  });
}

char *udocc_group_load(const char *data, int64_t len, const char *path, const char *device,
                       udocc_group **out) {
  return guard([&] {
    torch::Device dev = parse_device(device);
    if (len < 0) throw std::runtime_error(std::string(path) + ": negative length");
    torch::serialize::InputArchive ar;
    ar.load_from(data, static_cast<size_t>(len), torch::kCPU);
    at::Tensor fmt, sizes, hasdec;
    ar.read("format", fmt);
    if (fmt.numel() != 1 || (fmt.item<int64_t>() != kFormat && fmt.item<int64_t>() != kFormatRobust)) {
      throw std::runtime_error(std::string(path) + ": model format " + std::to_string(fmt.item<int64_t>()) +
                               ", this build reads formats " + std::to_string(kFormat) + " and " +
                               std::to_string(kFormatRobust));
    }
    ar.read("sizes", sizes);
    ar.read("has_decoder", hasdec);
    std::vector<int64_t> sz(sizes.data_ptr<int64_t>(), sizes.data_ptr<int64_t>() + sizes.numel());
    uint64_t seed = 0;
    std::unique_ptr<udocc_group> g(new_group(sz, 1, hasdec.item<int64_t>() != 0, dev, &seed));
    c10::OptionalStreamGuard on(g->stream);
    torch::NoGradGuard ng;
    for (auto &kv : named(g.get())) {
      at::Tensor t;
      ar.read(kv.first, t);
      if (t.sizes() != kv.second[0].sizes()) {
        throw std::runtime_error(std::string(path) + ": tensor " + kv.first + " has the wrong shape");
      }
      kv.second[0].copy_(t);
    }
    if (fmt.item<int64_t>() == kFormatRobust) {
      if (g->dec.empty()) throw std::runtime_error(std::string(path) + ": a reconstruction scale without a decoder");
      at::Tensor rc, rs;
      ar.read("rec_center", rc);
      ar.read("rec_scale", rs);
      const int64_t d = sz.front();
      if (rc.numel() != d || rs.numel() != d) {
        throw std::runtime_error(std::string(path) + ": reconstruction scale has the wrong shape");
      }
      rc = rc.to(at::kFloat).reshape({1, d}).contiguous();
      rs = rs.to(at::kFloat).reshape({1, d}).contiguous();
      if (!(rs > 0).all().item<bool>() || !torch::isfinite(rs).all().item<bool>() || !torch::isfinite(rc).all().item<bool>()) {
        throw std::runtime_error(std::string(path) + ": reconstruction scale is not finite and positive");
      }
      g->rc = rc;
      g->rs = rs;
    }
    *out = g.release();
  });
}

void udocc_group_set_reference(udocc_group *g, int on) { g->reference = on != 0; }

void udocc_group_info(const udocc_group *g, int *k, int *nsizes, int64_t *sizes, int cap) {
  *k = static_cast<int>(g->K);
  *nsizes = static_cast<int>(g->sizes.size());
  for (int i = 0; i < cap && i < *nsizes; ++i) sizes[i] = g->sizes[i];
}

}  // extern "C"

// dnnl_sgemm is oneDNN's row-major single-precision GEMM, looked up by name in the
// process (null where no oneDNN exports it): Debian's libtorch links a shared libdnnl
// beside an outside BLAS, and its sgemm runs the fast path's products about 20 times
// faster than the reference BLAS. The shim defines no BLAS symbol of its own (no sgemm_):
// what libtorch and the host call is theirs to choose.
using dnnl_sgemm_fn = int (*)(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                              const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                              float *c, int64_t ldc);
dnnl_sgemm_fn dnnl_sgemm() {
  static const dnnl_sgemm_fn f = reinterpret_cast<dnnl_sgemm_fn>(dlsym(RTLD_DEFAULT, "dnnl_sgemm"));
  return f;
}

namespace {

// on_workers runs work() on T threads, the calling thread among them and T - 1 of the
// pool's (whose OpenMP teams are held to one thread), and returns when all have.
void on_workers(int64_t T, const std::function<void()> &work) {
  pool().run(T, true, [&](int64_t) { work(); });
}

// Failure keeps the first exception a task throws, and once there is one, says to stop.
class Failure {
 public:
  void keep(std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!first_) first_ = e;
    failed_.store(true);
  }
  bool failed() const { return failed_.load(); }
  void rethrow() const {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::mutex mu_;
  std::exception_ptr first_;
  std::atomic<bool> failed_{false};
};

}  // namespace

void udocc::fast::parallel_for(int64_t n, const std::function<void(int64_t)> &f) {
  const int64_t T = std::min<int64_t>(workers.load(), n);
  if (T <= 1) {
    for (int64_t i = 0; i < n; ++i) f(i);
    return;
  }
  std::atomic<int64_t> next{0};
  Failure fail;
  on_workers(T, [&] {
    for (int64_t i; !fail.failed() && (i = next.fetch_add(1)) < n;) {
      try {
        f(i);
      } catch (...) {
        fail.keep(std::current_exception());
      }
    }
  });
  fail.rethrow();
}

namespace {

// Piece is steps lo .. hi-1 of chain k.
struct Piece {
  int64_t k, lo, hi;
};

// wrap_around deals the steps of chains of len[k] steps out to T threads by McNaughton's
// wrap-around rule: laid end to end, chain after chain, the steps are cut into T runs of
// equal length, each thread's run becoming its pieces; a chain cut in two has its first
// steps at the end of one run and the rest at the start of the next. Each thread runs the
// piece that starts a cut chain first and the piece that continues one last, so a chain
// no longer than a run (T <= K) has its first piece done before its second is due. A chain
// then moves between threads at most once, where steps cut into spans handed from thread
// to thread moved every chain dozens of times an epoch, and each move refills a cache
// with the member's weights, moments and buffers.
std::vector<std::vector<Piece>> wrap_around(const std::vector<int64_t> &len, int64_t T) {
  int64_t total = 0;
  for (int64_t l : len) total += l;
  std::vector<std::vector<Piece>> runs(T);
  auto end = [&](int64_t t) { return t + 1 == T ? total : (t + 1) * total / T; };  // of run t
  int64_t at = 0, t = 0;  // steps dealt so far; the run they go to
  for (int64_t k = 0; k < static_cast<int64_t>(len.size()); ++k) {
    for (int64_t lo = 0; lo < len[k];) {
      while (at >= end(t)) ++t;
      const int64_t hi = std::min(len[k], lo + end(t) - at);
      runs[t].push_back({k, lo, hi});
      at += hi - lo;
      lo = hi;
    }
  }
  // first the piece that starts a cut chain, then whole chains, then the piece that
  // continues a chain begun on an earlier thread
  auto order = [&](const Piece &p) { return p.lo > 0 ? 2 : p.hi < len[p.k] ? 0 : 1; };
  for (auto &r : runs) {
    std::stable_sort(r.begin(), r.end(), [&](const Piece &a, const Piece &b) { return order(a) < order(b); });
  }
  return runs;
}

}  // namespace

void udocc::fast::parallel_chains(const std::vector<int64_t> &len, int64_t S,
                                  const std::function<void(int64_t, int64_t, int64_t)> &f) {
  const int64_t K = static_cast<int64_t>(len.size());
  const int64_t T = std::min<int64_t>(workers.load(), K);
  if (T <= 1) {
    for (int64_t k = 0; k < K; ++k) f(k, 0, S);
    return;
  }
  std::vector<std::vector<Piece>> runs = wrap_around(len, T);
  // A chain's last piece runs to step S: steps past len[k] are ones f skips.
  for (auto &r : runs) {
    for (Piece &p : r) {
      if (p.hi == len[p.k]) p.hi = S;
    }
  }
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int64_t> done(K, 0);  // chain k's steps before this one have run
  std::atomic<int64_t> next{0};
  Failure fail;
  on_workers(T, [&] {
    const std::vector<Piece> &run = runs[next.fetch_add(1)];
    for (const Piece &p : run) {
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return done[p.k] == p.lo || fail.failed(); });
        if (fail.failed()) break;
      }
      try {
        f(p.k, p.lo, p.hi);
      } catch (...) {
        fail.keep(std::current_exception());
      }
      {
        std::lock_guard<std::mutex> lock(mu);
        done[p.k] = p.hi;
      }
      cv.notify_all();
    }
  });
  fail.rethrow();
}

// gemm is the fast path's matrix product (udocc_fast.h): oneDNN's sgemm called directly
// where the process has it (dnnl_sgemm) (row-major, as udocc_fast.cpp lays its buffers out), else
// libtorch's mm over the same memory.
void udocc::fast::gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                       const float *b, int64_t ldb, float *c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k > 0 && dnnl_sgemm() != nullptr &&
      dnnl_sgemm()(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc) == 0) {
    return;
  }
  auto opt = at::TensorOptions().dtype(at::kFloat);
  float *pa = const_cast<float *>(a), *pb = const_cast<float *>(b);
  at::Tensor A = ta ? torch::from_blob(pa, {k, m}, {lda, 1}, opt).t() : torch::from_blob(pa, {m, k}, {lda, 1}, opt);
  at::Tensor B = tb ? torch::from_blob(pb, {n, k}, {ldb, 1}, opt).t() : torch::from_blob(pb, {k, n}, {ldb, 1}, opt);
  at::Tensor C = torch::from_blob(c, {m, n}, {ldc, 1}, opt);
  C.copy_(torch::mm(A, B));
}

// Dense products for the host's own linear algebra (the Ledoit-Wolf Gaussian of wide
// tables, internal/project), on the fast path's sgemm: gonum's float64 products ran
// 2-4 GFLOP/s here, oneDNN's sgemm some tens a core. Every product has a shape fixed by
// the call's sizes alone and runs on one thread, so the results are the same bits at any
// worker count.
namespace {

// kGramCols is the most columns of x one single-precision product of udocc_gram sums
// over; the products' sums are added in double precision, in the columns' order.
constexpr int64_t kGramCols = 128;

// kProductRows is the number of rows of every product of udocc_rows_product, the last
// block made whole with zero rows. Small, because a block's whole product is paid for a
// single row: on InternetAds' Gaussian (B 1,555 x 1,555, two threads) a row alone took
// 6.7 ms in blocks of 64, 0.36 ms in blocks of 4 (gonum's float64 product before: 0.51
// ms), while every row of the table took 116 ms and 85 ms (bench/notes/cost.md).
constexpr int64_t kProductRows = 4;

}  // namespace

extern "C" {

char *udocc_gram(const float *x, int64_t r, int64_t c, double *out, int64_t len) {
  return guard([&] {
    if (r < 1 || c < 1) throw std::runtime_error("gram: no rows or no columns");
    udocc::check_len(len, r * r, "gram");
    const int64_t rows = udocc::fast::kEvalRows, tiles = (r + rows - 1) / rows;
    // A task is one tile of kEvalRows rows of out, from its first row's column to the
    // last: the upper triangle and the tile's own square. The lower triangle is then the
    // upper's mirror, so out is symmetric bit for bit and half the products are spared.
    udocc::fast::parallel_for(tiles, [&](int64_t t) {
      const int64_t lo = t * rows, m = std::min(rows, r - lo), n = r - lo;
      std::vector<float> part(m * n);
      std::vector<double> sum(m * n, 0.0);
      for (int64_t k0 = 0; k0 < c; k0 += kGramCols) {
        const int64_t k = std::min(kGramCols, c - k0);
        udocc::fast::gemm(false, true, m, n, k, x + lo * c + k0, c, x + lo * c + k0, c, part.data(), n);
        for (int64_t i = 0; i < m * n; ++i) sum[i] += part[i];
      }
      for (int64_t i = 0; i < m; ++i) std::copy(sum.begin() + i * n, sum.begin() + (i + 1) * n, out + (lo + i) * r + lo);
    });
    for (int64_t i = 0; i < r; ++i)
      for (int64_t j = 0; j < i; ++j) out[i * r + j] = out[j * r + i];
  });
}

char *udocc_rows_product(const float *x, int64_t n, int64_t k, const float *b, int64_t q, int tb,
                         float *out, int64_t len) {
  return guard([&] {
    if (n < 1 || k < 1 || q < 1) throw std::runtime_error("rows_product: an empty matrix");
    udocc::check_len(len, n * q, "rows_product");
    const int64_t rows = kProductRows, blocks = (n + rows - 1) / rows;
    udocc::fast::parallel_for(blocks, [&](int64_t t) {
      const int64_t lo = t * rows, m = std::min(rows, n - lo);
      const float *xb = x + lo * k;
      float *ob = out + lo * q;
      std::vector<float> pad, padout;
      if (m < rows) {  // the last block made whole with zero rows: every product's shape is rows x q
        pad.assign(rows * k, 0.0f);
        std::copy(xb, xb + m * k, pad.begin());
        padout.resize(rows * q);
        xb = pad.data();
        ob = padout.data();
      }
      if (tb != 0) {
        udocc::fast::gemm(false, true, rows, q, k, xb, k, b, k, ob, q);
      } else {
        udocc::fast::gemm(false, false, rows, q, k, xb, k, b, q, ob, q);
      }
      if (m < rows) std::copy(padout.begin(), padout.begin() + m * q, out + lo * q);
    });
  });
}

}  // extern "C"
