// pin_test.cpp: pins the shim's hand-written Adam and masked BatchNorm to libtorch's own
// torch::optim::Adam and torch::nn::BatchNorm1d.
//
// It drives a two-member group through the shim's C ABI only (udocc_torch.h), so it
// tests what the shim does, not how: pretraining epochs of the autoencoder, the center,
// then fine-tuning epochs of the one-class loss, with per-member learning rates and
// weight decays and with plans that exercise the dense step (both members on a full
// minibatch), the masked step (different row counts in one padded step) and a member
// sitting a step out. Beside it, each member is rebuilt as a plain libtorch model from
// the shim's initial weights (Linear without bias, BatchNorm1d(eps 1e-4, momentum 0.1,
// affine false), LeakyReLU(0.01): Ruff's networks) and trained on the same rows with
// torch::optim::Adam. Losses, weights, running statistics, the center and the eval-mode
// distances must agree to float rounding.
//
// Built by `./build.sh test` into lib/udocc_pin_test, linked against lib/libudocc_torch.so
// (found through its RUNPATH), and run by torch/pin_test.go. It prints one line per
// mismatch and exits 1 if there is any, 0 otherwise.
#include "../udocc_torch.h"

#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int64_t kN = 40, kD = 5;
const std::vector<int64_t> kSizes = {kD, 8, 6, 3};  // two BatchNorm layers, a bare last Linear
constexpr int kK = 2;
const double kLR[kK] = {1e-3, 3e-3};
const double kWD[kK] = {1e-6, 1e-3};

int failures = 0;

void check(const char *err, const char *what) {
  if (err != nullptr) {
    std::fprintf(stderr, "%s: %s\n", what, err);
    std::exit(2);
  }
}

// close_to compares the shim's values got with the reference want, elementwise, to
// |got - want| <= atol + rtol |want|.
void close_to(const std::string &what, const at::Tensor &got, const at::Tensor &want,
              double rtol = 1e-4, double atol = 1e-6) {
  at::Tensor g = got.to(at::kDouble).flatten(), w = want.detach().to(at::kDouble).flatten();
  if (g.numel() != w.numel()) {
    std::printf("FAIL %s: %ld values, want %ld\n", what.c_str(), static_cast<long>(g.numel()),
                static_cast<long>(w.numel()));
    ++failures;
    return;
  }
  at::Tensor bad = (g - w).abs() > atol + rtol * w.abs();
  if (bad.any().item<bool>()) {
    int64_t i = bad.nonzero()[0][0].item<int64_t>();
    std::printf("FAIL %s: element %ld is %.9g, libtorch's %.9g (%ld of %ld differ)\n", what.c_str(),
                static_cast<long>(i), g[i].item<double>(), w[i].item<double>(),
                static_cast<long>(bad.sum().item<int64_t>()), static_cast<long>(g.numel()));
    ++failures;
  }
}

at::Tensor param(udocc_group *g, int k, const std::string &name) {
  std::vector<float> buf(4096);
  int64_t n = 0;
  check(udocc_group_get_param(g, k, name.c_str(), buf.data(), static_cast<int64_t>(buf.size()), &n),
        name.c_str());
  return torch::from_blob(buf.data(), {n}, at::kFloat).clone();
}

// Net is one member as libtorch modules: linear[i] and, but for the last, bn[i].
struct Net {
  std::vector<torch::nn::Linear> linear;
  std::vector<torch::nn::BatchNorm1d> bn;
  torch::nn::LeakyReLU act{torch::nn::LeakyReLUOptions().negative_slope(0.01)};

  // from copies member k's layers named prefix.i.weight (in x out in the shim).
  void from(udocc_group *g, int k, const std::string &prefix, const std::vector<int64_t> &sz) {
    for (size_t i = 0; i + 1 < sz.size(); ++i) {
      torch::nn::Linear l(torch::nn::LinearOptions(sz[i], sz[i + 1]).bias(false));
      torch::NoGradGuard ng;
      l->weight.copy_(param(g, k, prefix + "." + std::to_string(i) + ".weight").view({sz[i], sz[i + 1]}).t());
      linear.push_back(l);
      if (i + 2 < sz.size()) {
        bn.emplace_back(torch::nn::BatchNorm1dOptions(sz[i + 1]).eps(1e-4).momentum(0.1).affine(false));
      }
    }
  }
  at::Tensor forward(at::Tensor h) {
    for (size_t i = 0; i < linear.size(); ++i) {
      h = linear[i]->forward(h);
      if (i < bn.size()) h = act->forward(bn[i]->forward(h));
    }
    return h;
  }
  void train(bool on) {
    for (auto &b : bn) b->train(on);
  }
  std::vector<at::Tensor> parameters() const {
    std::vector<at::Tensor> ps;
    for (const auto &l : linear) ps.push_back(l->weight);
    return ps;
  }
  // compare checks this net's weights and running statistics against member k's.
  void compare(udocc_group *g, int k, const std::string &prefix, const std::string &when) {
    for (size_t i = 0; i < linear.size(); ++i) {
      std::string base = prefix + "." + std::to_string(i);
      close_to(when + " member " + std::to_string(k) + " " + base + ".weight", param(g, k, base + ".weight"),
               linear[i]->weight.t().contiguous());
      if (i < bn.size()) {
        close_to(when + " member " + std::to_string(k) + " " + base + ".running_mean",
                 param(g, k, base + ".running_mean"), bn[i]->running_mean);
        close_to(when + " member " + std::to_string(k) + " " + base + ".running_var",
                 param(g, k, base + ".running_var"), bn[i]->running_var);
      }
    }
  }
};

// Step is one minibatch of each member: its rows (none: it sits the step out).
using Step = std::vector<std::vector<int64_t>>;

// plan lays the steps out as the C ABI wants them (padding index kN).
struct Plan {
  std::vector<int32_t> rows;  // int32, as the C ABI takes row indices
  std::vector<int32_t> counts;
  std::vector<uint8_t> flags;
  int64_t S = 0, P = 0;
};

Plan lay_out(const std::vector<Step> &steps) {
  Plan p;
  p.S = static_cast<int64_t>(steps.size());
  for (const auto &s : steps)
    for (const auto &r : s) p.P = std::max<int64_t>(p.P, static_cast<int64_t>(r.size()));
  p.rows.assign(kK * p.S * p.P, kN);
  p.counts.assign(kK * p.S, 0);
  p.flags.assign(kK * p.S, 0);
  for (int k = 0; k < kK; ++k) {
    for (int64_t s = 0; s < p.S; ++s) {
      const auto &r = steps[s][k];
      std::copy(r.begin(), r.end(), p.rows.begin() + (k * p.S + s) * p.P);
      p.counts[k * p.S + s] = static_cast<int32_t>(r.size());
      p.flags[k * p.S + s] = r.empty() ? 0 : 1;
    }
  }
  return p;
}

std::vector<int64_t> range(const at::Tensor &perm, int64_t from, int64_t len) {
  std::vector<int64_t> out;
  for (int64_t i = from; i < from + len; ++i) out.push_back(perm[i].item<int64_t>());
  return out;
}

// epoch is a plan over the shuffled rows perm of each member: a dense step (16 rows
// each), a step member 1 sits out, then uneven steps (masked BatchNorm).
std::vector<Step> epoch(const at::Tensor &p0, const at::Tensor &p1) {
  return {
      {range(p0, 0, 16), range(p1, 0, 16)},
      {range(p0, 16, 16), {}},
      {range(p0, 32, 8), range(p1, 16, 11)},
      {range(p0, 0, 3), range(p1, 27, 13)},
  };
}

}  // namespace

int main() {
  torch::manual_seed(7);
  at::Tensor x = torch::randn({kN, kD});
  const uint64_t seeds[kK] = {11, 12};
  udocc_group *g = nullptr;
  check(udocc_group_new(kSizes.data(), static_cast<int>(kSizes.size()), kK, 1, "cpu", seeds, &g), "new");
  check(udocc_group_set_data(g, x.data_ptr<float>(), kN, kD), "set_data");

  std::vector<int64_t> rev(kSizes.rbegin(), kSizes.rend());
  Net enc[kK], dec[kK];
  for (int k = 0; k < kK; ++k) {
    enc[k].from(g, k, "enc", kSizes);
    dec[k].from(g, k, "dec", rev);
  }

  // Pretraining: Adam over encoder and decoder, MSE over all features.
  check(udocc_group_reset_adam(g, 0, kLR, kWD), "reset_adam 0");
  std::vector<std::unique_ptr<torch::optim::Adam>> opt;
  for (int k = 0; k < kK; ++k) {
    auto ps = enc[k].parameters();
    for (auto &p : dec[k].parameters()) ps.push_back(p);
    opt.push_back(std::make_unique<torch::optim::Adam>(ps, torch::optim::AdamOptions(kLR[k]).weight_decay(kWD[k])));
  }
  for (int e = 0; e < 2; ++e) {
    auto steps = epoch(torch::randperm(kN), torch::randperm(kN));
    Plan p = lay_out(steps);
    double loss[kK];
    check(udocc_group_pretrain_epoch(g, p.rows.data(), p.counts.data(), p.flags.data(), p.S, p.P, loss, kK),
          "pretrain_epoch");
    for (int k = 0; k < kK; ++k) {
      enc[k].train(true);
      dec[k].train(true);
      double sum = 0;
      int nb = 0;
      for (const auto &s : steps) {
        if (s[k].empty()) continue;
        at::Tensor xb = x.index_select(0, torch::tensor(s[k]));
        at::Tensor l = torch::mse_loss(dec[k].forward(enc[k].forward(xb)), xb);
        opt[k]->zero_grad();
        l.backward();
        opt[k]->step();
        sum += l.item<double>();
        ++nb;
      }
      std::string when = "pretraining epoch " + std::to_string(e + 1);
      close_to(when + " member " + std::to_string(k) + " loss", torch::tensor({loss[k]}), torch::tensor({sum / nb}));
      enc[k].compare(g, k, "enc", when);
      dec[k].compare(g, k, "dec", when);
    }
  }

  // The center: the eval-mode mean output, components nearer 0 than eps pushed to ±eps.
  check(udocc_group_init_center(g, 0.1), "init_center");
  at::Tensor c[kK];
  for (int k = 0; k < kK; ++k) {
    torch::NoGradGuard ng;
    enc[k].train(false);
    at::Tensor m = enc[k].forward(x).mean(0);
    at::Tensor small = m.abs() < 0.1;
    c[k] = torch::where(small & (m < 0), torch::full_like(m, -0.1), m);
    c[k] = torch::where(small & (m > 0), torch::full_like(m, 0.1), c[k]);
    close_to("center member " + std::to_string(k), param(g, k, "center"), c[k]);
    c[k] = param(g, k, "center");  // go on from the shim's own, so later checks pin training alone
  }

  // Fine-tuning: a fresh Adam over the encoder, the one-class loss mean ||phi(x) - c||^2.
  check(udocc_group_reset_adam(g, 1, kLR, kWD), "reset_adam 1");
  opt.clear();
  for (int k = 0; k < kK; ++k) {
    opt.push_back(std::make_unique<torch::optim::Adam>(enc[k].parameters(),
                                                       torch::optim::AdamOptions(kLR[k]).weight_decay(kWD[k])));
  }
  const uint8_t soft[kK] = {0, 0}, update_r[kK] = {0, 0};
  const double nu[kK] = {0.1, 0.1};
  for (int e = 0; e < 3; ++e) {
    auto steps = epoch(torch::randperm(kN), torch::randperm(kN));
    Plan p = lay_out(steps);
    double loss[kK];
    check(udocc_group_train_epoch(g, p.rows.data(), p.counts.data(), nullptr, p.flags.data(), p.S, p.P, soft,
                                  nu, update_r, loss, kK, nullptr, 0),
          "train_epoch");
    std::vector<float> dist(kK * kN);
    // A buffer of another length is refused and left as it was.
    std::vector<float> short_buf(kK * kN - 1, -7.0f);
    if (char *err = udocc_group_distances(g, short_buf.data(), kK * kN - 1)) {
      udocc_error_free(err);
    } else {
      std::printf("FAIL distances took a buffer one value short\n");
      ++failures;
    }
    for (float v : short_buf) {
      if (v != -7.0f) {
        std::printf("FAIL distances changed a buffer it refused\n");
        ++failures;
        break;
      }
    }
    check(udocc_group_distances(g, dist.data(), kK * kN), "distances");
    for (int k = 0; k < kK; ++k) {
      enc[k].train(true);
      double sum = 0;
      int nb = 0;
      for (const auto &s : steps) {
        if (s[k].empty()) continue;
        at::Tensor z = enc[k].forward(x.index_select(0, torch::tensor(s[k])));
        at::Tensor l = (z - c[k]).pow(2).sum(1).mean();
        opt[k]->zero_grad();
        l.backward();
        opt[k]->step();
        sum += l.item<double>();
        ++nb;
      }
      std::string when = "fine-tuning epoch " + std::to_string(e + 1);
      close_to(when + " member " + std::to_string(k) + " loss", torch::tensor({loss[k]}), torch::tensor({sum / nb}));
      enc[k].compare(g, k, "enc", when);
      torch::NoGradGuard ng;
      enc[k].train(false);
      at::Tensor want = (enc[k].forward(x) - c[k]).pow(2).sum(1);
      at::Tensor got = torch::from_blob(dist.data() + k * kN, {kN}, at::kFloat);
      close_to(when + " member " + std::to_string(k) + " eval-mode distances", got, want);
    }
  }
  udocc_group_close(g);
  if (failures > 0) {
    std::printf("%d mismatches\n", failures);
    return 1;
  }
  std::printf("ok: the shim's Adam and BatchNorm match libtorch's\n");
  return 0;
}
