// udocc_dist.cpp: data-parallel runs on libtorch's c10d, the engine of PyTorch's DDP.
//
// A run is W processes (ranks) that meet at a c10d TCPStore (rank 0 serves it) and make
// one process group: Gloo for CPU groups, NCCL for CUDA groups where the libtorch has it
// (build.sh defines UDOCC_NCCL then). A group given a process group with
// udocc_group_set_dist becomes a Reducer-holding rank (udocc_reduce.h): its state is
// broadcast from rank 0, its flat Adam gradient is all-reduced and averaged before every
// step, its radii after every update, its BatchNorm running statistics after every epoch,
// and its center is the all-reduced mean. Everything else (which rows a rank holds, the
// scores' all-gather) is the host's business, through the collectives below.
//
// Every collective waits for its result; a peer that died or hangs makes it throw (Gloo:
// at once when the peer's socket closes, else after the timeout), which guard turns into
// the error of the entry point.
#include "udocc_reduce.h"
#include "udocc_torch.h"

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#if __has_include(<gloo/config.h>)
#define USE_C10D_GLOO 1
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#define UDOCC_HAVE_GLOO 1
#endif

#ifdef UDOCC_NCCL
#define USE_C10D_NCCL 1
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// dist_guard runs f as every entry point of udocc_torch.cpp runs its work: on one of the
// shim's own threads (not the Go thread that called), with its exceptions caught and
// turned into the call's error.
template <typename F>
char *dist_guard(F &&f) {
  return udocc::guarded([&] { f(); });
}

bool loopback(const std::string &addr) {
  return addr == "localhost" || addr.rfind("127.", 0) == 0 || addr == "::1";
}

}  // namespace

struct udocc_dist {
  c10::intrusive_ptr<c10d::Store> store;
  // The process group, held by its concrete type: libtorch 2 derives both from
  // c10d::Backend, 1.13 from c10d::ProcessGroup; on() calls whichever this run has.
#ifdef UDOCC_HAVE_GLOO
  c10::intrusive_ptr<c10d::ProcessGroupGloo> gloo;
#endif
#ifdef UDOCC_NCCL
  c10::intrusive_ptr<c10d::ProcessGroupNCCL> nccl;
#endif
  torch::Device dev{torch::kCPU};
  int rank = 0, world = 1;
  std::chrono::milliseconds timeout{0};
  // trace, where UDOCC_DIST_TRACE names a prefix, gets one line per collective this rank
  // enters, "kind values", in order (PREFIX.rank.N): every rank must write the same lines.
  std::FILE *trace = nullptr;
  // refs counts the holders of the process group: the caller's handle until
  // udocc_dist_close, and each group made a rank of it (its reducer), so that closing the
  // handle while a group still uses it leaves the group a process group to reduce over.
  std::atomic<int> refs{1};

  ~udocc_dist() {
    if (trace != nullptr) std::fclose(trace);
  }

  // record notes a collective of kind over n values in the trace.
  void record(const char *kind, int64_t n) {
    if (trace == nullptr) return;
    std::fprintf(trace, "%s %lld\n", kind, static_cast<long long>(n));
    std::fflush(trace);  // a rank that hangs or is killed leaves its trace up to the hang
  }

  // wait runs one collective to its end, naming it in the error.
  void wait(const c10::intrusive_ptr<c10d::Work> &w, const char *what) {
    auto fail = [&](const char *why) {
      throw std::runtime_error(std::string("rank ") + std::to_string(rank) + " of " + std::to_string(world) +
                               ": " + what + " failed (a peer died, hung past the " +
                               std::to_string(timeout.count() / 1000) + " s timeout, or left): " + why);
    };
    try {
      w->wait(timeout);
    } catch (const c10::Error &e) {
      fail(e.what_without_backtrace());
    } catch (const std::exception &e) {
      fail(e.what());
    }
  }

  template <typename F>
  c10::intrusive_ptr<c10d::Work> on(F &&f) {
#ifdef UDOCC_HAVE_GLOO
    if (gloo) return f(*gloo);
#endif
#ifdef UDOCC_NCCL
    if (nccl) return f(*nccl);
#endif
    throw std::runtime_error("no process group");
  }

  void allreduce(at::Tensor &t) {
    record("all-reduce", t.numel());
    std::vector<at::Tensor> ts{t};
    wait(on([&](auto &pg) { return pg.allreduce(ts); }), "all-reduce");
  }
};

namespace {

// release drops one holder of d; the last one frees it.
void release(udocc_dist *d) {
  if (d->refs.fetch_sub(1) == 1) delete d;
}

// DistReducer is a group's view of its process group, which it holds while it lives.
class DistReducer : public udocc::Reducer {
 public:
  explicit DistReducer(udocc_dist *d) : d_(d) { d_->refs.fetch_add(1); }
  ~DistReducer() override {
    try {
      release(d_);
    } catch (...) {
    }
  }
  DistReducer(const DistReducer &) = delete;
  DistReducer &operator=(const DistReducer &) = delete;
  void sum(at::Tensor &t) override { d_->allreduce(t); }
  int64_t world() const override { return d_->world; }

 private:
  udocc_dist *d_;
};

}  // namespace

extern "C" {

char *udocc_dist_new(const char *addr, int port, int rank, int world, const char *device,
                     int64_t timeout_ms, udocc_dist **out) {
  return dist_guard([&] {
    if (world < 1 || rank < 0 || rank >= world) {
      throw std::runtime_error("rank " + std::to_string(rank) + " is not in a world of " + std::to_string(world));
    }
    if (port < 1 || port > 65535) throw std::runtime_error("port " + std::to_string(port) + " out of range");
    if (timeout_ms < 1) throw std::runtime_error("timeout must be positive");
    auto d = std::make_unique<udocc_dist>();
    d->dev = torch::Device(device);
    d->rank = rank;
    d->world = world;
    d->timeout = std::chrono::milliseconds(timeout_ms);
    c10d::TCPStoreOptions so;
    so.port = static_cast<uint16_t>(port);
    so.isServer = rank == 0;
    so.numWorkers = static_cast<size_t>(world);
    so.waitWorkers = true;
    so.timeout = d->timeout;
    if (const char *prefix = std::getenv("UDOCC_DIST_TRACE"); prefix != nullptr && *prefix != 0) {
      const std::string path = std::string(prefix) + ".rank." + std::to_string(rank);
      d->trace = std::fopen(path.c_str(), "w");
      if (d->trace == nullptr) throw std::runtime_error("UDOCC_DIST_TRACE: cannot write " + path);
    }
    d->store = c10::make_intrusive<c10d::TCPStore>(std::string(addr), so);
    if (d->dev.is_cuda()) {
#ifdef UDOCC_NCCL
      auto opts = c10d::ProcessGroupNCCL::Options::create();
      opts->timeout = d->timeout;
      d->nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(d->store, rank, world, opts);
#else
      throw std::runtime_error("device " + std::string(device) +
                               ": this shim was built without NCCL (build it against a CUDA libtorch)");
#endif
    } else {
#ifdef UDOCC_HAVE_GLOO
      auto opts = c10d::ProcessGroupGloo::Options::create(d->timeout);
      if (const char *ifname = std::getenv("GLOO_SOCKET_IFNAME")) {
        opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
      } else if (loopback(addr)) {
        opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
      } else {
        opts->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
      }
      opts->threads = 2;
      d->gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(d->store, rank, world, opts);
#else
      throw std::runtime_error("this shim was built without Gloo's headers (install libgloo-dev and rebuild)");
#endif
    }
    *out = d.release();
  });
}

int udocc_dist_gloo_compiled(void) {
#ifdef UDOCC_HAVE_GLOO
  return 1;
#else
  return 0;
#endif
}

void udocc_dist_close(udocc_dist *d) {
  try {
    release(d);
  } catch (...) {
  }
}

char *udocc_dist_allreduce(udocc_dist *d, double *buf, int64_t n) {
  return dist_guard([&] {
    if (n < 1) return;
    at::Tensor h = torch::from_blob(buf, {n}, at::TensorOptions().dtype(at::kDouble));
    at::Tensor t = d->dev.is_cuda() ? h.to(d->dev) : h;  // Gloo works on the host buffer itself
    d->allreduce(t);
    if (d->dev.is_cuda()) h.copy_(t.cpu());
  });
}

char *udocc_dist_allgather(udocc_dist *d, const float *in, const int64_t *counts, float *out,
                           int64_t len) {
  return dist_guard([&] {
    int64_t all = 0;
    for (int r = 0; r < d->world; ++r) all += counts[r];
    udocc::check_len(len, std::max<int64_t>(all, 1), "all-gather");
    // c10d's allgather wants equal sizes: every rank pads its part to the longest.
    int64_t width = 1;
    for (int r = 0; r < d->world; ++r) width = std::max(width, counts[r]);
    auto opt = at::TensorOptions().dtype(at::kFloat).device(d->dev);
    at::Tensor mine = torch::zeros({width}, opt);
    const int64_t own = counts[d->rank];
    if (own > 0) {
      mine.narrow(0, 0, own).copy_(torch::from_blob(const_cast<float *>(in), {own}, at::TensorOptions().dtype(at::kFloat)));
    }
    std::vector<std::vector<at::Tensor>> outs(1);
    for (int r = 0; r < d->world; ++r) outs[0].push_back(torch::empty({width}, opt));
    std::vector<at::Tensor> ins{mine};
    int64_t total = 0;
    for (int r = 0; r < d->world; ++r) total += counts[r];
    d->record("all-gather", total);
    d->wait(d->on([&](auto &pg) { return pg.allgather(outs, ins); }), "all-gather");
    int64_t off = 0;
    for (int r = 0; r < d->world; ++r) {
      at::Tensor h = outs[0][r].narrow(0, 0, counts[r]).cpu();
      std::memcpy(out + off, h.data_ptr<float>(), sizeof(float) * counts[r]);
      off += counts[r];
    }
  });
}

char *udocc_dist_barrier(udocc_dist *d) {
  return dist_guard([&] {
    // A one-element all-reduce: Gloo's barrier does not take a timeout of its own.
    double one = 1;
    at::Tensor t = torch::from_blob(&one, {1}, at::TensorOptions().dtype(at::kDouble)).to(d->dev);
    d->allreduce(t);
  });
}

char *udocc_group_set_dist(udocc_group *g, udocc_dist *d) {
  return dist_guard([&] {
    udocc::set_reducer(g, std::make_shared<DistReducer>(d));
    // Every rank starts from rank 0's state, as DDP does at construction.
    std::vector<at::Tensor> st = udocc::state(g);
    std::vector<at::Tensor> flat;
    for (const auto &t : st) flat.push_back(t.reshape({-1}));
    at::Tensor all = torch::cat(flat);
    std::vector<at::Tensor> ts{all};
    c10d::BroadcastOptions bo;
    bo.rootRank = 0;
    d->record("broadcast", all.numel());
    d->wait(d->on([&](auto &pg) { return pg.broadcast(ts, bo); }), "broadcast of rank 0's weights");
    torch::NoGradGuard ng;
    int64_t off = 0;
    for (auto &t : st) {
      t.copy_(all.narrow(0, off, t.numel()).view(t.sizes()));
      off += t.numel();
    }
  });
}

}  // extern "C"
