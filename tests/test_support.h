// Helpers shared by the core tests: random tensors and the reference logit matrix.
#pragma once

#include <ATen/ATen.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "encodings/encoding.h"
#include "train/train_config.h"

namespace poslab::testing {

// log(1 + e^x) in float64: how the trained families map raw parameters to gamma (MATH 2.3).
inline double softplus(double x) {
  return std::log1p(std::exp(x));
}

// A tiny kernel-lm run on the CPU, the base the trainer, worker, checkpoint and soak tests build
// on: one layer, no evaluation during the run (callers set what their test is about).
inline TrainConfig tinyKernelLmRun(const std::string& family, long long heads, long long dModel,
                                   long long trainLength, long long batch, long long steps) {
  TrainConfig c;
  c.model.family = family;
  c.model.heads = heads;
  c.model.layers = 1;
  c.model.dModel = dModel;
  c.task.id = "kernel-lm";
  c.task.trainLength = trainLength;
  c.optim.batch = batch;
  c.run.steps = steps;
  c.run.evalEvery = 0;
  c.run.device = "cpu";
  return c;
}

// A folder of its own under the temporary directory for a test's files, removed with it.
class ScratchFolder {
 public:
  explicit ScratchFolder(const std::string& name)
      : dir_(std::filesystem::temp_directory_path() /
             ("poslab_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
  }
  ~ScratchFolder() { std::filesystem::remove_all(dir_); }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  // Writes `bytes` to the file `name` in the folder (replacing it); its path.
  std::string write(const std::string& name, const std::string& bytes) const {
    const auto path = dir_ / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path.string();
  }
  const std::filesystem::path& path() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

// Deterministic random (B, H, T, D) tensor in dtype.
inline at::Tensor randomQK(long long B, long long H, long long T, long long D, at::ScalarType dtype,
                           unsigned seed) {
  at::manual_seed(seed);
  return at::randn({B, H, T, D}, at::TensorOptions().dtype(at::kDouble)).to(dtype);
}

inline at::Tensor positions(long long first, long long count) {
  return at::arange(static_cast<int64_t>(first), static_cast<int64_t>(first + count),
                    at::TensorOptions().dtype(at::kLong));
}

// Reference logits (B, H, Tq, Tk) from Encoding::referenceLogit, -inf where j > i.
inline at::Tensor referenceLogits(const Encoding& enc, const at::Tensor& q, const at::Tensor& k,
                                  const at::Tensor& qPos, const at::Tensor& kPos) {
  at::Tensor q64 = q.to(at::kDouble).contiguous(), k64 = k.to(at::kDouble).contiguous();
  const long long B = q.size(0), H = q.size(1), Tq = q.size(2), Tk = k.size(2), D = q.size(3);
  at::Tensor out = at::empty({B, H, Tq, Tk}, at::TensorOptions().dtype(at::kDouble));
  auto o = out.accessor<double, 4>();
  auto qp = qPos.accessor<int64_t, 1>();
  auto kp = kPos.accessor<int64_t, 1>();
  const double* qd = q64.data_ptr<double>();
  const double* kd = k64.data_ptr<double>();
  for (long long b = 0; b < B; ++b)
    for (long long h = 0; h < H; ++h)
      for (long long i = 0; i < Tq; ++i)
        for (long long j = 0; j < Tk; ++j) {
          if (kp[j] > qp[i]) {
            o[b][h][i][j] = -std::numeric_limits<double>::infinity();
            continue;
          }
          const double* qv = qd + ((b * H + h) * Tq + i) * D;
          const double* kv = kd + ((b * H + h) * Tk + j) * D;
          o[b][h][i][j] = enc.referenceLogit(qv, kv, qp[i], kp[j], h);
        }
  return out;
}

// Largest |a - b| over finite entries; checks that a and b are -inf at the same places.
inline double maxAbsDiff(const at::Tensor& a, const at::Tensor& b) {
  at::Tensor fa = at::isfinite(a), fb = at::isfinite(b);
  if (!at::equal(fa, fb)) return std::numeric_limits<double>::infinity();
  at::Tensor diff = (a.to(at::kDouble) - b.to(at::kDouble)).abs();
  diff = at::where(fa, diff, at::zeros_like(diff));
  return diff.max().item<double>();
}

// Every family, with the head count and head_dim its tests use.
struct FamilyCase {
  std::string id;
  std::map<std::string, double> params;
  long long heads;
};

inline std::vector<FamilyCase> allFamilyCases() {
  // Non-default parameters so that every term is active (gamma, eta, several orders).
  return {
      {"nope", {}, 2},
      {"rope", {}, 2},
      {"rope-pi", {{"scale", 4}}, 2},
      {"rope-ntk", {{"scale", 4}}, 2},
      {"rope-yarn", {{"scale", 8}, {"L", 64}}, 2},
      {"rope-ntk-affine", {{"scale", 4}, {"L", 48}, {"heads", 2}, {"slope", 1.5}}, 2},
      {"xpos", {}, 2},
      {"alibi", {{"heads", 4}}, 4},
      {"rope-alibi", {{"heads", 4}}, 4},
      {"damped-rope", {{"gamma", 0.01}}, 2},
      {"direct-sum", {{"gamma", 0.02}, {"eta", 0.08}, {"L", 64}}, 2},
      {"jordan-exact", {{"gamma", 0.005}, {"eta", 0.05}}, 2},
      {"jordan-stabilized", {{"gamma", 0.005}, {"eta", 0.3}, {"L", 32}}, 2},
      {"jordan-stabilized-abs", {{"gamma", 0.005}, {"eta", 0.3}, {"L", 32}}, 2},
      {"real-jordan", {{"gamma", 0.01}, {"eta", 0.3}, {"L", 32}}, 2},
      {"jordan-no-gamma", {{"eta", 0.3}, {"L", 32}}, 2},
      {"jordan-scaled", {{"c", 0.5}, {"eta", 0.7}, {"L", 64}}, 2},
      {"jordan-m3", {{"gamma", 0.003}, {"eta", 0.05}, {"L", 32}}, 2},
      {"jordan-m4", {{"gamma", 0.003}, {"eta", 0.05}, {"L", 32}}, 2},
      {"jordan-m3-exact", {{"gamma", 0.003}, {"eta", 0.02}}, 2},
      {"jordan-m4-exact", {{"gamma", 0.003}, {"eta", 0.02}}, 2},
      {"jordan-m3-scaled", {{"c", 0.5}, {"eta", 0.7}, {"L", 64}}, 2},
      {"jordan-m4-scaled", {{"c", 0.5}, {"eta", 0.7}, {"L", 64}}, 2},
      {"jordan-m3-jetmix", {{"c", 0.1}, {"jet1", 0.6}, {"jet2", -0.4}, {"L", 32}}, 2},
      {"jordan-m4-jetmix",
       {{"c", 0.1}, {"jet1", 0.5}, {"jet2", -0.3}, {"jet3", 0.7}, {"L", 32}},
       2},
      {"jordan-m4-jetmix-full",
       {{"c", 0.1}, {"jet0", 0.8}, {"jet1", 1.2}, {"jet2", 0.6}, {"jet3", -0.9}, {"L", 32}},
       2},
      {"jordan-scaled-alibi", {{"c", 0.5}, {"eta", 0.7}, {"L", 64}, {"heads", 4}}, 4},
      {"jordan-m3-jetmix-alibi",
       {{"c", 0.1}, {"jet1", 0.6}, {"jet2", -0.4}, {"L", 32}, {"heads", 4}},
       4},
      {"jordan-m4-jetmix-full-alibi",
       {{"c", 0.1},
        {"jet0", 0.8},
        {"jet1", 1.2},
        {"jet2", 0.6},
        {"jet3", -0.9},
        {"L", 32},
        {"heads", 4}},
       4},
      {"pj-bias", {{"heads", 3}, {"L", 64}, {"rho", 1}}, 3},
      {"pj-rotary",
       {{"order", 2},
        {"gamma", 0.004},
        {"eta", 0.5},
        {"L", 64},
        {"head_dim", 18},
        {"affine_blocks", 1}},
       2},
      {"pope", {{"delta", -0.7}}, 2},
  };
}

}  // namespace poslab::testing
