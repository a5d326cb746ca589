// A trained run's learned position parameters as its family's parameter values (issue 31, item 6:
// "Show in explorer"): one head's entries or the mean over all, clamped to the parameter's range,
// the start value for what was not learned, PJ-bias's gates and PoPE's phase bias under the
// explorer's names. Expected values are worked out by hand from the
// numbers given; the module case checks that a run built from a γ reports that γ back.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "model/position_module.h"
#include "train/learned_values.h"
#include "util/error.h"

namespace poslab {
namespace {

TEST(LearnedValues, OneHeadKeepsItsBlocksAndTheWholeModelValues) {
  // Two heads, two blocks: entries h * 2 + b.
  const PositionParameters learned{{"gamma", {0.1, 0.2, 0.3, 0.4}}, {"mass_FJ1", {7.0}}};
  const PositionParameters h1 = headOfParameters(learned, 2, 1);
  EXPECT_EQ(h1.at("gamma"), (std::vector<double>{0.3, 0.4}));
  EXPECT_EQ(h1.at("mass_FJ1"), (std::vector<double>{7.0}));
  EXPECT_EQ(headOfParameters(learned, 2, 0).at("gamma"), (std::vector<double>{0.1, 0.2}));
  EXPECT_THROW(headOfParameters(learned, 2, 2), InvalidArgument);
  EXPECT_THROW(headOfParameters(learned, 0, 0), InvalidArgument);
}

TEST(LearnedValues, MeanOverTheStartClampedAndNamed) {
  std::vector<std::string> clamped, unmatched;
  const auto v = familyValuesFromLearned(
      "jordan-stabilized", {{"omega", 0.5}},
      {{"gamma", {0.01, 0.03}}, {"eta", {-40.0, -60.0}}, {"gate_FJ", {1.0}}}, &clamped, &unmatched);
  EXPECT_NEAR(v.at("gamma"), 0.02, 1e-15);  // (0.01 + 0.03) / 2
  EXPECT_EQ(v.at("eta"), -10.0);            // mean -50, below eta's range [-10, 10]
  EXPECT_EQ(clamped, std::vector<std::string>{"eta"});
  EXPECT_EQ(unmatched, std::vector<std::string>{"gate_FJ"});
  EXPECT_EQ(v.at("omega"), 0.5);  // not learned: the start
  EXPECT_EQ(v.at("L"), 256.0);    // neither: the family's default
  EXPECT_THROW(familyValuesFromLearned("no-such-family", {}, {}), InvalidArgument);
}

// Issue 31: PJ-bias's gates and PoPE's phase bias reach the explorer under its own parameter names
// (gate_FJ is g_fj, delta_mean is delta); PJ-bias's masses show no parameter.
TEST(LearnedValues, GatesAndPhaseBiasShowTheirExplorerParameters) {
  std::vector<std::string> unmatched;
  const auto pj = familyValuesFromLearned("pj-bias", {},
                                          {{"gate_FJ", {0.7, 0.5}},
                                           {"gate_affine", {0.2, 0.1}},
                                           {"gate_LC", {0.1, 0.4}},
                                           {"mass_FJ1", {0.3}}},
                                          nullptr, &unmatched);
  EXPECT_NEAR(pj.at("g_fj"), 0.6, 1e-15);  // (0.7 + 0.5) / 2
  EXPECT_NEAR(pj.at("g_aff"), 0.15, 1e-15);
  EXPECT_NEAR(pj.at("g_lc"), 0.25, 1e-15);
  EXPECT_EQ(unmatched, std::vector<std::string>{"mass_FJ1"});
  const PositionParameters pope{{"delta_mean", {-1.0, -3.0}}};  // heads 0 and 1
  EXPECT_EQ(familyValuesFromLearned("pope", {}, pope).at("delta"), -2.0);
  EXPECT_EQ(familyValuesFromLearned("pope", {}, headOfParameters(pope, 2, 1)).at("delta"), -3.0);
  EXPECT_EQ(explorerParamOfLearned("jordan-stabilized", "gamma"), "gamma");
  EXPECT_EQ(explorerParamOfLearned("rope", "gate_FJ"), "gate_FJ");  // pj-bias's declaration only
}

// A model built from γ = 0.02 reports γ = 0.02 in every head and block (softplus's inverse in
// float32), and its mean is that γ again.
TEST(LearnedValues, AModelReportsTheGammaItWasBuiltFrom) {
  ModelConfig cfg;
  cfg.family = "jordan-stabilized";
  cfg.familyParams = {{"gamma", 0.02}};
  cfg.dModel = 32;
  cfg.heads = 2;
  PositionModuleImpl module(cfg, 64);
  const PositionParameters learned = module.snapshot();
  ASSERT_EQ(learned.at("gamma").size() % 2, 0u);  // (H, nb) head by head
  for (double g : learned.at("gamma")) EXPECT_NEAR(g, 0.02, 1e-7);
  EXPECT_NEAR(familyValuesFromLearned(cfg.family, cfg.familyParams, learned).at("gamma"), 0.02,
              1e-7);
  EXPECT_NEAR(familyValuesFromLearned(cfg.family, cfg.familyParams, headOfParameters(learned, 2, 1))
                  .at("gamma"),
              0.02, 1e-7);
}

// PJ-bias built from gates 0.5 / 0.3 / 0.2 and PoPE from delta = -1 show those values again.
TEST(LearnedValues, ModelsReportTheGatesAndPhaseBiasTheyWereBuiltFrom) {
  ModelConfig cfg;
  cfg.family = "pj-bias";
  cfg.familyParams = {{"g_fj", 0.5}, {"g_aff", 0.3}, {"g_lc", 0.2}};
  cfg.dModel = 32;
  cfg.heads = 2;
  const auto pj = familyValuesFromLearned(cfg.family, {}, PositionModuleImpl(cfg, 64).snapshot());
  EXPECT_NEAR(pj.at("g_fj"), 0.5, 1e-6);
  EXPECT_NEAR(pj.at("g_aff"), 0.3, 1e-6);
  EXPECT_NEAR(pj.at("g_lc"), 0.2, 1e-6);
  cfg.family = "pope";
  cfg.familyParams = {{"delta", -1.0}};
  const auto pope = familyValuesFromLearned(cfg.family, {}, PositionModuleImpl(cfg, 64).snapshot());
  EXPECT_NEAR(pope.at("delta"), -1.0, 1e-6);
}

}  // namespace
}  // namespace poslab
