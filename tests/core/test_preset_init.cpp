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

}  // namespace
}  // namespace poslab
