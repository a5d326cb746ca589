// Sector-teacher task (PJ-RoPE; docs/MATH.md 3.4). Kernels in sector_teacher.h.
//
// Layout, length T:   bit_0 .. bit_{T-2}  QUERY        vocab 3: bits 0, 1; QUERY = 2
// x_t = 2 bit_t - 1; config.kernel names the teacher. Option "teacher":
//   0  signed normalised K: score = sum_{d=1}^{T-1} x_{T-1-d} K(d) / ||K||, ||K|| the L2 norm over
//      the training lags d = 1..trainLength-1 (as kernel-lm)
//   1  softmax(4 K) attention: score = sum_d softmax_d(4 K(d)) x_{T-1-d}, softmax over d = 1..T-1
// target at T-1: 1[score > 0] (an exact tie, |score| <= 1e-12 sum_d |weight_d|, gives 0); -1
// elsewhere; answer true only at T-1. T in [2, 2^20].
// Options: omega (default 2 pi * 4 / L), teacher (0 or 1), L (default trainLength).
#include "tasks/sector_teacher.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

#include "tasks/task_common.h"
#include "util/error.h"

namespace poslab {

namespace {

constexpr uint64_t kSalt = 0x1d1ec7'1d3e'0004ULL;
constexpr double kSoftmaxScale = 4;  // softmax(4 K): the teacher's attention temperature
constexpr double kPeriods = 4;       // default omega: 4 periods over the training length

void checkTeacherName(const std::string& name) {
  const auto names = sectorTeacherNames();
  if (std::find(names.begin(), names.end(), name) != names.end()) return;
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  throw InvalidArgument("unknown sector teacher '" + name + "'", "known teachers: " + list);
}

class SectorTeacherTask : public Task {
 public:
  explicit SectorTeacherTask(const TaskConfig& config) : teacher_(config.kernel) {
    checkTeacherName(teacher_);
    if (config.trainLength < 2)
      throw InvalidArgument("sector-teacher: trainLength " + std::to_string(config.trainLength) +
                            " must be at least 2 (the kernel is normalised over lags 1..L-1)");
    // The kernels' context scale L defaults to the training length; a smaller L makes the
    // window reach past it, where the light-cone chart's log-compressed phase differs from FJ's.
    const TaskOptions opts(
        "sector-teacher", config.options,
        {{"omega", -1}, {"teacher", 0}, {"L", static_cast<double>(config.trainLength)}});
    L_ = opts.get("L");
    if (!(L_ >= 1)) throw InvalidArgument("sector-teacher: option L must be >= 1");
    omega_ = opts.get("omega") < 0 ? 2 * M_PI * kPeriods / L_ : opts.get("omega");
    softmax_ = opts.getInt("teacher", 0, 1) == 1;
    norm_ = trainingLagNorm([&](double d) { return sectorTeacherKernel(teacher_, omega_, L_, d); },
                            config.trainLength);
    if (!softmax_ && (!(norm_ > 0) || !std::isfinite(norm_)))
      throw InvalidArgument("sector-teacher: teacher '" + teacher_ + "' has L2 norm " +
                                std::to_string(norm_) + " over the training lags",
                            "it must be positive and finite; check omega and trainLength");
  }

  std::string id() const override { return "sector-teacher"; }
  long long vocabSize() const override { return 3; }
  long long minLength() const override { return 2; }
  long long maxLength() const override { return kMaxTaskLength; }

  std::vector<double> labelWeights(long long length) const override {
    // weights[d], d = 1..T-1: K(d) / ||K||, or softmax_d(4 K(d)) (max-shifted for stability).
    std::vector<double> weights(length, 0.0);
    for (long long d = 1; d < length; ++d)
      weights[d] = sectorTeacherKernel(teacher_, omega_, L_, static_cast<double>(d));
    if (softmax_) {
      double m = -HUGE_VAL, z = 0;
      for (long long d = 1; d < length; ++d) m = std::max(m, kSoftmaxScale * weights[d]);
      for (long long d = 1; d < length; ++d)
        z += weights[d] = std::exp(kSoftmaxScale * weights[d] - m);
      for (long long d = 1; d < length; ++d) weights[d] /= z;
    } else {
      for (double& w : weights) w /= norm_;
    }
    return weights;
  }

  Batch sample(long long batch, long long length, uint64_t seed) const override {
    checkSampleArgs(*this, batch, length);
    const std::vector<double> weights = labelWeights(length);
    Batch out = emptyBatch(batch, length);
    int64_t* tokens = out.tokens.data_ptr<int64_t>();
    int64_t* targets = out.targets.data_ptr<int64_t>();
    bool* answer = out.answer.data_ptr<bool>();
    forEachExample(batch, length, seed, kSalt, [&](long long b, std::mt19937_64& rng) {
      fillBitsQueryExample(rng, weights, /*stochastic=*/false, tokens + b * length,
                           targets + b * length, answer + b * length, length);
    });
    return out;
  }

 private:
  std::string teacher_;
  double L_ = 64;
  double omega_ = 0;
  bool softmax_ = false;
  double norm_ = 1;
};

}  // namespace

std::vector<std::string> sectorTeacherNames() {
  return {"phase", "jet1", "jet2", "jet3", "affine", "recency", "lc", "lc-affine"};
}

std::string sectorOfTeacher(const std::string& name) {
  checkTeacherName(name);
  if (name == "affine" || name == "recency") return "affine";
  if (name == "lc") return "LC";
  if (name == "lc-affine") return "LC+affine";
  return "FJ";
}

double sectorTeacherKernel(const std::string& name, double omega, double L, double d) {
  const double u = d / L, c = std::cos(omega * d);
  if (name == "phase") return c;
  if (name == "jet1") return u * c;
  if (name == "jet2") return u * u / 2 * c;
  if (name == "jet3") return u * u * u / 6 * c;
  if (name == "affine") return -u;
  if (name == "recency") return -u + 0.25 * u * c;
  const double phi = L * std::asinh(u);  // phi_L(d), the light-cone clock of pj_kernel.h
  if (name == "lc") return std::cos(omega * phi);
  if (name == "lc-affine") return 0.5 * std::cos(omega * phi) - 0.5 * std::asinh(u);
  checkTeacherName(name);
  return 0;  // unreachable: checkTeacherName threw
}

std::unique_ptr<Task> makeSectorTeacherTask(const TaskConfig& config) {
  return std::make_unique<SectorTeacherTask>(config);
}

}  // namespace poslab
