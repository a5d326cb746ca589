// The presets that reproduce the PJ-RoPE reference's synthetic query LM start PJ-bias's affine
// slope where the reference does. experiments/synthetic_query_lm.py (ybzhang-nxu/Poincare_Rope,
// 514da7e), make_pj_bias: raw_affine_slope.fill_(inverse_softplus(init_affine_slope)), with
// --init-affine-slope 0.4 by default and inverse_softplus(v) = log(expm1(v)); the slope is
// softplus(raw_affine_slope). PJ-bias alone starts at softplus(0) = ln 2 (the PJBias module's
// zeros), which the audit of 2026-12-04 found in the presets' runs (docs/RESULTS.md amendment 3).
// The raw value is written out below from the reference's formula and the slope is computed here
// with std::log1p, not with PosLab's inverse softplus or snapshot. Tolerance 1e-6: the raw tensor
// is float32 (its rounding moves softplus by about 5e-10).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <vector>

#include "train/experiment_plan.h"
#include "train/preset.h"
#include "train/trainer.h"

namespace poslab {
namespace {

constexpr double kReferenceSlope = 0.4;                    // --init-affine-slope's default
constexpr double kReferenceRawSlope = -0.709632931588928;  // log(expm1(0.4)), float64

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(PresetInit, PjSectorPresetsStartTheAffineSlopeAtTheReferences) {
  ASSERT_NEAR(std::log1p(std::exp(kReferenceRawSlope)), kReferenceSlope, 1e-15);
  for (const std::string name : {"pj-sector-teachers", "pj-sector-teachers-paper"}) {
    const std::vector<PlannedRun> plan = planExperiment(loadPreset(name));
    ASSERT_FALSE(plan.empty()) << name;
    for (const PlannedRun& run : plan) {
      const std::string what = name + " " + run.variant + " seed " + std::to_string(run.seed);
      ASSERT_EQ(run.family, "pj-bias") << what;
      Trainer t(run.config);
      long long layersSeen = 0;
      for (const std::string& p : t.parameterNames()) {
        if (!endsWith(p, ".position.slope_raw")) continue;
        ++layersSeen;
        const at::Tensor raw = t.parameter(p).detach().to(at::kDouble).cpu().flatten();
        ASSERT_EQ(raw.numel(), run.config.model.heads) << what << " " << p;
        for (int64_t h = 0; h < raw.numel(); ++h) {
          const double r = raw[h].item<double>();
          EXPECT_NEAR(r, kReferenceRawSlope, 1e-6) << what << " " << p << " head " << h;
          EXPECT_NEAR(std::log1p(std::exp(r)), kReferenceSlope, 1e-6)
              << what << " " << p << " head " << h << " (ln 2 = 0.693 is PJ-bias's own start)";
        }
      }
      EXPECT_EQ(layersSeen, run.config.model.layers) << what;
    }
  }
}

// The Jordan-RoPE reference's scaled-exact method jordan_exact_c100_eta002 (c = 1, the shear from
// eta = 0.002, eta = eta_max tanh(raw) with eta_max 0.1) is byte-lm's jordan-scaled; its eta = 0
// control has no learned shear at all. raw = atanh(0.002 / 0.1) written out from that formula.
TEST(PresetInit, ByteLmScaledExactStartsTheShearAtTheReferencesAndItsControlPinsIt) {
  constexpr double kRawEta002 = 0.020002667306849;  // atanh(0.02)
  ASSERT_NEAR(0.1 * std::tanh(kRawEta002), 0.002, 1e-15);
  for (const PlannedRun& run : planExperiment(loadPreset("byte-lm"))) {
    if (run.family != "jordan-scaled") continue;
    Trainer t(run.config);
    long long layersSeen = 0;
    for (const std::string& p : t.parameterNames()) {
      if (!endsWith(p, ".position.eta_raw")) continue;
      ++layersSeen;
      const at::Tensor raw = t.parameter(p).detach().to(at::kDouble).cpu().flatten();
      for (int64_t i = 0; i < raw.numel(); ++i)
        EXPECT_NEAR(raw[i].item<double>(), kRawEta002, 1e-6) << p << " seed " << run.seed;
    }
    EXPECT_EQ(layersSeen, run.config.model.layers);
  }
  const std::vector<PlannedRun> control = planExperiment(loadPreset("byte-lm-eta0-control"));
  ASSERT_EQ(control.size(), 3u);
  for (const PlannedRun& run : control) {
    Trainer t(run.config);
    for (const std::string& p : t.parameterNames())
      EXPECT_FALSE(endsWith(p, ".position.eta_raw")) << p << ": the control learns a shear";
    const auto position = t.positionParametersMean();
    if (auto eta = position.find("eta"); eta != position.end())  // pinned: reported or not, 0
      for (double e : eta->second) EXPECT_EQ(e, 0.0);
    // The same batches as byte-lm's runs of the same seed: only the family's parameters differ.
    TrainConfig twin = run.config;
    for (const PlannedRun& other : planExperiment(loadPreset("byte-lm")))
      if (other.family == "jordan-scaled" && other.seed == run.seed) twin = other.config;
    EXPECT_EQ(twin.task.trainLength, run.config.task.trainLength);
    EXPECT_EQ(twin.optim.batch, run.config.optim.batch);
    EXPECT_EQ(twin.run.steps, run.config.run.steps);
    EXPECT_EQ(twin.run.seed, run.config.run.seed);
  }
}

// The laptop kernel-LM keeps the reference's eta tau range: eta_max 0.1 x 1024 / 64 = 1.6, so a
// saturated raw shear gives eta = 1.6 (not the family's default cap 0.1).
TEST(PresetInit, LaptopKernelLmScalesTheShearCapToItsWindow) {
  for (const PlannedRun& run : planExperiment(loadPreset("jordan-kernel-lm"))) {
    if (run.family != "jordan-stabilized-abs") continue;
    Trainer t(run.config);
    {
      torch::NoGradGuard guard;
      for (const std::string& p : t.parameterNames())
        if (endsWith(p, ".position.eta_raw")) t.parameter(p).fill_(20.0);
    }
    const auto position = t.positionParametersMean();  // kept: .at() of a temporary dangles
    ASSERT_TRUE(position.count("eta"));
    for (double eta : position.at("eta")) EXPECT_NEAR(eta, 1.6, 1e-6);
    EXPECT_EQ(run.config.model.dModel / run.config.model.heads, 32);  // the reference's head size
    return;
  }
  FAIL() << "jordan-kernel-lm has no jordan-stabilized-abs run";
}

}  // namespace
}  // namespace poslab
