// POSLAB_METRICS_EVERY (trainer.cpp; issue #14: a GPU training step that does not wait for the
// host): reading the metrics every n steps changes what the snapshots carry, not the training. The
// run with n = 5 must give the n = 1 run's losses at the read steps and its weights at the end.
//
// Tolerance 1e-6 relative: with LibTorch 2.x the clipping is the same operations either way (equal
// to rounding); Debian's LibTorch 1.13 computes clip_grad_norm_'s coefficient in double on the
// host, the device-side clipping in float32: the updates differ by float32 rounding (~1e-7).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdlib>

#include "test_support.h"
#include "train/trainer.h"

namespace poslab {
namespace {

TrainConfig run12() {
  // jordan-stabilized learns gamma and eta: snapshots carry them.
  TrainConfig c = testing::tinyKernelLmRun("jordan-stabilized", /*heads=*/2, /*dModel=*/32,
                                           /*trainLength=*/24, /*batch=*/8, /*steps=*/12);
  c.run.seed = 3;
  c.model.layers = 2;  // snapshots carry each layer's parameters and their mean
  c.run.evalLengths = {24};
  c.run.evalSequences = 4;
  return c;
}

TEST(MetricsEvery, ReadStepsCarryTheSameLossAndTheWeightsAgree) {
  Trainer every(run12());
  setenv("POSLAB_METRICS_EVERY", "5", 1);
  Trainer sparse(run12());
  unsetenv("POSLAB_METRICS_EVERY");
  for (long long step = 1; step <= 12; ++step) {
    const Snapshot a = every.step(), b = sparse.step();
    const bool read = step % 5 == 0 || step == 12;
    ASSERT_TRUE(std::isfinite(a.loss)) << "step " << step;
    if (read) {
      EXPECT_NEAR(b.loss, a.loss, 1e-6 * (1 + std::abs(a.loss))) << "step " << step;
      EXPECT_NEAR(b.gradNorm, a.gradNorm, 1e-5 * (1 + a.gradNorm)) << "step " << step;
      ASSERT_FALSE(b.position.empty()) << "step " << step;
      for (const auto& [name, values] : a.position)
        for (size_t i = 0; i < values.size(); ++i)
          EXPECT_NEAR(b.position.at(name).at(i), values[i], 1e-6 * (1 + std::abs(values[i])))
              << name << " step " << step;
      // Each layer's own values come with their mean (the training panel's per-layer view).
      EXPECT_EQ(b.positionLayers, sparse.positionParametersByLayer()) << "step " << step;
      EXPECT_EQ(b.position, meanOverLayers(b.positionLayers)) << "step " << step;
    } else {
      EXPECT_TRUE(std::isnan(b.loss)) << "step " << step << ": not a read step";
      EXPECT_TRUE(std::isnan(b.gradNorm)) << "step " << step;
      EXPECT_TRUE(b.position.empty()) << "step " << step;
      EXPECT_TRUE(b.positionLayers.empty()) << "step " << step;
    }
  }
  for (const std::string& name : every.parameterNames()) {
    const at::Tensor x = every.parameter(name), y = sparse.parameter(name);
    const double scale = 1 + x.abs().max().item<double>();
    EXPECT_LT((x - y).abs().max().item<double>(), 1e-6 * scale) << name;
  }
}

TEST(MetricsEvery, ZeroOrTextIsEveryStep) {
  for (const char* value : {"0", "-3", "five", "1"}) {
    setenv("POSLAB_METRICS_EVERY", value, 1);
    Trainer t(run12());
    unsetenv("POSLAB_METRICS_EVERY");
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(std::isfinite(t.step().loss)) << value;
  }
}

}  // namespace
}  // namespace poslab
