// udocc_reduce.h: the C++ seam between udocc_torch.cpp (the tensor work) and
// udocc_dist.cpp (data-parallel runs on c10d). It is not part of the C ABI.
//
// A group with a Reducer is one rank of a data-parallel run; without one it is a single
// process and none of the hooks below run, so its numbers are exactly those it had
// before data-parallel training existed.
#ifndef UDOCC_REDUCE_H
#define UDOCC_REDUCE_H

#include <torch/torch.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

struct udocc_group;

namespace udocc {

// Reducer combines tensors over the ranks of a run.
class Reducer {
 public:
  virtual ~Reducer() = default;
  // sum replaces the contiguous tensor t, on the group's device, by its sum over the
  // ranks, in place; every rank receives the same bits.
  virtual void sum(at::Tensor &t) = 0;
  // world is the number of ranks W.
  virtual int64_t world() const = 0;
};

// mean_all replaces every tensor of ts (float, one device) by its mean over the ranks,
// in one collective over their concatenation.
inline void mean_all(Reducer &r, const std::vector<at::Tensor> &ts) {
  if (ts.empty()) return;
  torch::NoGradGuard ng;
  std::vector<at::Tensor> flat;
  for (const auto &t : ts) flat.push_back(t.reshape({-1}));
  at::Tensor all = torch::cat(flat);
  r.sum(all);
  all.div_(static_cast<double>(r.world()));
  int64_t off = 0;
  for (const auto &t : ts) {
    at::Tensor v = t;  // shares storage with the caller's tensor
    v.copy_(all.narrow(0, off, t.numel()).view(t.sizes()));
    off += t.numel();
  }
}

// check_len refuses a caller's buffer of have values where a call writes or reads need.
inline void check_len(int64_t have, int64_t need, const char *what) {
  if (have != need) {
    throw std::runtime_error(std::string(what) + ": the caller's buffer holds " + std::to_string(have) +
                             " values, the call needs " + std::to_string(need));
  }
}

// Implemented in udocc_torch.cpp, which owns the group's layout and its errors.
// guarded runs f as every entry point's work runs (on one of the shim's threads, its
// exceptions caught) and returns its error of the C ABI, or NULL.
char *guarded(const std::function<void()> &f);
void set_reducer(udocc_group *g, std::shared_ptr<Reducer> r);
std::vector<at::Tensor> state(udocc_group *g);  // every tensor of the state, saved names' order

}  // namespace udocc

#endif
