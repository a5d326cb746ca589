// run.metrics_every (RunConfig::metricsEvery, read in trainer.cpp; issue #14: a GPU training step
// that does not wait for the host): reading the metrics every n steps changes what the snapshots
// carry, not the training. The run with n = 5 must give the n = 1 run's losses at the read steps
// and its weights at the end.
//
// Tolerance 1e-6 relative: with LibTorch 2.x the clipping is the same operations either way (equal
// to rounding); Debian's LibTorch 1.13 computes clip_grad_norm_'s coefficient in double on the
// host, the device-side clipping in float32: the updates differ by float32 rounding (~1e-7).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

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
  TrainConfig sparseConfig = run12();
  sparseConfig.run.metricsEvery = 5;
  Trainer sparse(sparseConfig);
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

// The environment variable only sets the default of a config made after it is set; a value that
// is not a whole number above 1 leaves the default at every step.
TEST(MetricsEvery, TheEnvironmentSetsOnlyTheDefault) {
  for (const auto& [value, want] : std::vector<std::pair<const char*, long long>>{
           {"0", 1}, {"-3", 1}, {"five", 1}, {"1", 1}, {"7", 7}}) {
    setenv("POSLAB_METRICS_EVERY", value, 1);
    const TrainConfig c = run12();
    unsetenv("POSLAB_METRICS_EVERY");
    EXPECT_EQ(c.run.metricsEvery, want) << value;
    Trainer t(c);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(std::isfinite(t.step().loss), want == 1) << value;
  }
  EXPECT_EQ(RunConfig{}.metricsEvery, 1);
}

// Saved with the run: a checkpoint carries the run settings, and a config or checkpoint written
// before they existed (no "attention", no "metrics_every") reads with the defaults.
TEST(RunSettings, AreSavedAndOldConfigsReadWithDefaults) {
  TrainConfig c = run12();
  c.run.metricsEvery = 4;
  c.run.attention = "reference";
  const nlohmann::json j = c;
  EXPECT_EQ(j["run"]["metrics_every"], 4);
  EXPECT_EQ(j["run"]["attention"], "reference");
  const TrainConfig back = j.get<TrainConfig>();
  EXPECT_EQ(back.run.metricsEvery, 4);
  EXPECT_EQ(back.run.attention, "reference");
  nlohmann::json old = j;
  old["run"].erase("metrics_every");
  old["run"].erase("attention");
  const TrainConfig oldBack = old.get<TrainConfig>();
  EXPECT_EQ(oldBack.run.metricsEvery, 1);
  EXPECT_EQ(oldBack.run.attention, "fused");

  const std::string path = ::testing::TempDir() + "/run_settings.pt";
  Trainer t(c);
  t.step();
  t.saveCheckpoint(path);
  const auto restored = Trainer::fromCheckpoint(path);
  EXPECT_EQ(restored->config().run.metricsEvery, 4);
  EXPECT_EQ(restored->config().run.attention, "reference");
  std::remove(path.c_str());
}

TEST(RunSettings, AnUnknownAttentionPathIsRefusedNamingTheField) {
  TrainConfig c = run12();
  c.run.attention = "flash";
  try {
    c.validate();
    FAIL() << "attention 'flash' accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("run.attention"), std::string::npos) << e.what();
  }
  nlohmann::json j = run12();
  j["run"]["metrics_every"] = 0;
  EXPECT_THROW(j.get<TrainConfig>(), InvalidArgument);
}

}  // namespace
}  // namespace poslab
