// Kernel LM / distance-modulated phase (Jordan-RoPE paper; docs/MATH.md 3.2): classify the sign of
// a lag-kernel weighted sum of random bits, as the reference code does (ybzhang-nxu/jordan_rope
// scripts/run_kernel_lm.py: kernel_values, generate_batch; configs/kernel_lm.yaml).
//
// Layout, length T:   bit_0 .. bit_{T-2}  QUERY        vocab 3: bits 0, 1; QUERY = 2
// x_t = 2 bit_t - 1; the bit at position t has lag d = T-1-t (the reference's kernel.flip(0)).
// score = sum_{d=1}^{T-1} x_{T-1-d} K(d) / max(||K||, 1e-6), ||K|| = the L2 norm of K over the
// training lags d = 1 .. trainLength-1 (the same at every evaluation length, so longer sequences
// add the kernel's tail rather than rescaling it). K = lagKernel(config.kernel) with
// defaultLagKernelParams(headDim, base 10000, L = trainLength): omega = 10000^(-2*3/headDim),
// omega2 = 10000^(-2*5/headDim), gamma = 1e-4, scaled_c = 0.1 (the reference's
// target_freq_index 3, second_freq_index 5, gamma 1e-4, scaled_c 0.1).
// target at T-1: 1[score > 0] (the reference's label_mode threshold; an exact tie, |score| <=
// 1e-12 sum_d |K(d)| / ||K||, gives 0), or with "stochastic" = 1 a Bernoulli(sigmoid(3 score))
// draw (label_mode stochastic, logit_scale 3); -1 elsewhere; answer true only at T-1.
// T in [2, 2^20]. PosLab computes in float64 (the reference in float32).
// Options: omega, omega2, gamma, scaled_c (override the kernel parameters), stochastic (0 or 1).
#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

#include "tasks/lag_kernels.h"
#include "tasks/task_common.h"
#include "util/error.h"

namespace poslab {

namespace {

constexpr uint64_t kSalt = 0x1d1ec7'1d3e'0002ULL;
constexpr double kBase = 10000;      // RoPE base that sets the default omega = base^(-6/headDim)
constexpr double kNormFloor = 1e-6;  // the reference's clamp_min(1e-6) on ||K||

class KernelLmTask : public Task {
 public:
  explicit KernelLmTask(const TaskConfig& config) : kernel_(config.kernel) {
    checkLagKernelName(kernel_);
    if (config.trainLength < 2)
      throw InvalidArgument("kernel-lm: trainLength " + std::to_string(config.trainLength) +
                            " must be at least 2 (the kernel is normalised over lags 1..L-1)");
    if (config.headDim < 1)
      throw InvalidArgument("kernel-lm: headDim " + std::to_string(config.headDim) +
                            " must be positive");
    params_ =
        defaultLagKernelParams(config.headDim, kBase, static_cast<double>(config.trainLength));
    const TaskOptions opts("kernel-lm", config.options,
                           {{"omega", params_.omega},
                            {"omega2", params_.omega2},
                            {"gamma", params_.gamma},
                            {"scaled_c", params_.scaledC},
                            {"stochastic", 0}});
    params_.omega = opts.get("omega");
    params_.omega2 = opts.get("omega2");
    params_.gamma = opts.getReal("gamma", 0, HUGE_VAL);
    params_.scaledC = opts.getReal("scaled_c", -HUGE_VAL, HUGE_VAL);
    stochastic_ = opts.getInt("stochastic", 0, 1) == 1;
    norm_ = trainingLagNorm([&](double d) { return lagKernel(kernel_, params_, {d})[0]; },
                            config.trainLength);
    // An all-zero kernel would label every sequence 0; the reference clamps the norm at 1e-6 and
    // trains on it, PosLab refuses it.
    if (!(norm_ > 0) || !std::isfinite(norm_))
      throw InvalidArgument("kernel-lm: kernel '" + kernel_ + "' has L2 norm " +
                                std::to_string(norm_) + " over the training lags",
                            "it must be positive and finite; check omega, gamma, trainLength");
  }

  std::string id() const override { return "kernel-lm"; }
  long long vocabSize() const override { return 3; }
  long long answerTokenCount() const override { return 2; }  // the labels are bits 0 and 1
  long long minLength() const override { return 2; }
  long long maxLength() const override { return kMaxTaskLength; }

  std::vector<double> labelWeights(long long length) const override {
    std::vector<double> weights = targetKernel(length);
    for (double& w : weights) w /= std::max(norm_, kNormFloor);
    return weights;
  }

  std::vector<double> targetKernel(long long length) const override {
    std::vector<double> lags(std::max<long long>(length, 1));
    for (size_t d = 0; d < lags.size(); ++d) lags[d] = static_cast<double>(d);
    return lagKernel(kernel_, params_, lags);  // index d = lag
  }

  Batch sample(long long batch, long long length, uint64_t seed) const override {
    checkSampleArgs(*this, batch, length);  // before labelWeights allocates length entries
    return sampleBitsQueryBatch(*this, labelWeights(length), stochastic_, batch, length, seed,
                                kSalt);
  }

 private:
  std::string kernel_;
  LagKernelParams params_;
  bool stochastic_ = false;
  double norm_ = 1;
};

std::vector<TaskOptionSpec> kernelLmOptionSpecs(const TaskConfig& c) {
  const LagKernelParams p = defaultLagKernelParams(std::max<long long>(1, c.headDim), kBase,
                                                   static_cast<double>(c.trainLength));
  return {{"omega", false, -HUGE_VAL, HUGE_VAL, p.omega, true,
           "main frequency of the target kernel (rad per position); default 10000^(-6/head_dim)"},
          {"omega2", false, -HUGE_VAL, HUGE_VAL, p.omega2, true,
           "second frequency (rhythm_envelope); default 10000^(-10/head_dim)"},
          {"gamma", false, 0, HUGE_VAL, p.gamma, false, "decay of damped_mixed (per position)"},
          {"scaled_c", false, -HUGE_VAL, HUGE_VAL, p.scaledC, false,
           "c of scaled_high_jet_rN: x^N e^(-c x) cos(omega d)"},
          {"stochastic", true, 0, 1, 0, false,
           "1: labels drawn from sigmoid(3 score) instead of the sign of the score"}};
}

std::unique_ptr<Task> makeKernelLmTask(const TaskConfig& config) {
  return std::make_unique<KernelLmTask>(config);
}

}  // namespace

const TaskInfo& kernelLmTaskInfo() {
  static const TaskInfo info = [] {
    TaskInfo i;
    i.id = "kernel-lm";
    i.make = makeKernelLmTask;
    i.optionSpecs = kernelLmOptionSpecs;
    i.kernelChoices = lagKernelNames();
    i.defaultKernel = "mixed_raw";  // the paper's main kernel
    i.kernelLabel = "kernel";
    i.kernelHelp = "Target lag kernel K(d); also high_jet_rN, N = 1..16";
    i.capabilities.lagResponse = true;
    return i;
  }();
  return info;
}

}  // namespace poslab
