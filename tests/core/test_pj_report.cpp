// The report of a trained PJ-bias model (issue #12 §1.7, MATH 2.3 and 4.2.1): gates and masses
// as the mean over layers by default and per layer on request, as the PJ-RoPE reference's summary
// of a trained model (experiments/synthetic_query_lm.py, pj_summary: per block the mean over heads,
// then the mean over blocks); the affine mass apart from the FJ/LC masses and never in their share
// (pjrope/diagnostics.py: the normalised mass is over the jet orders). The models here are set by
// hand, so the expected values are computed in the test from the chosen raw values.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "analysis/pj_diagnostics.h"
#include "test_support.h"
#include "train/position_summary.h"
#include "train/trainer.h"
#include "util/error.h"

namespace poslab {
namespace {

using testing::softplus;

TEST(PositionSummary, MeanOverLayersIsEntryWise) {
  const PositionParameters a{{"gate_FJ", {0.2, 0.4}}, {"mass_affine", {1.0}}};
  const PositionParameters b{{"gate_FJ", {0.6, 0.0}}, {"mass_affine", {3.0}}};
  const PositionParameters m = meanOverLayers({a, b});
  ASSERT_EQ(m.at("gate_FJ").size(), 2u);
  EXPECT_DOUBLE_EQ(m.at("gate_FJ")[0], 0.4);
  EXPECT_DOUBLE_EQ(m.at("gate_FJ")[1], 0.2);
  EXPECT_DOUBLE_EQ(m.at("mass_affine")[0], 2.0);
  EXPECT_TRUE(meanOverLayers({}).empty());
  EXPECT_THROW(meanOverLayers({a, {{"gate_FJ", {1.0}}, {"mass_affine", {1.0}}}}), InvalidArgument);
  EXPECT_THROW(meanOverLayers({a, {{"gate_LC", {1.0, 2.0}}, {"mass_affine", {1.0}}}}),
               InvalidArgument);
}

// Two layers of two heads, order R = 1, each layer's gates, order weights, zeta and slope set by
// hand: each layer reports its own softmax gates and masses, the mean is their average, and the
// affine mass g_aff softplus(s) stands beside the FJ/LC masses.
TEST(PjBiasReport, HandSetGatesAndMassesPerLayerAndMean) {
  TrainConfig c;
  c.model.family = "pj-bias";
  c.model.familyParams = {{"order", 1}};
  c.model.heads = 2;
  c.model.layers = 2;
  c.model.dModel = 16;
  c.task.id = "kernel-lm";
  c.task.trainLength = 24;
  c.optim.batch = 4;
  c.run.steps = 1;
  c.run.evalLengths = {24};
  c.run.evalSequences = 4;
  c.run.device = "cpu";
  Trainer t(c);

  // gate logits (layer, head, sector FJ/affine/LC); alpha_fj logits (layer, head, order);
  // zeta_fj (layer, head, order, re/im); slope raw (layer, head). LC: alpha uniform, zeta 0.
  const double gl[2][2][3] = {{{0.0, 1.0, -1.0}, {2.0, 0.0, 0.0}},
                              {{-0.5, 0.5, 0.0}, {0.0, 0.0, 3.0}}};
  const double al[2][2][2] = {{{0.0, 1.0}, {0.5, -0.5}}, {{2.0, 0.0}, {0.0, 0.0}}};
  const double zf[2][2][2][2] = {{{{3, 4}, {1, 0}}, {{0, 2}, {0.6, 0.8}}},
                                 {{{1, 1}, {0, 0}}, {{2, 0}, {0, -3}}}};
  const double sr[2][2] = {{0.0, 1.0}, {-1.0, 2.0}};
  {
    torch::NoGradGuard guard;
    for (int l = 0; l < 2; ++l) {
      const std::string p = "block" + std::to_string(l) + ".attn.position.";
      for (int h = 0; h < 2; ++h) {
        for (int s = 0; s < 3; ++s) t.parameter(p + "gate_logits")[h][s] = gl[l][h][s];
        for (int r = 0; r < 2; ++r) {
          t.parameter(p + "alpha_fj_logits")[h][r] = al[l][h][r];
          t.parameter(p + "alpha_lc_logits")[h][r] = 0.0;
          for (int part = 0; part < 2; ++part) {
            t.parameter(p + "zeta_fj")[h][r][part] = zf[l][h][r][part];
            t.parameter(p + "zeta_lc")[h][r][part] = 0.0;
          }
        }
        t.parameter(p + "slope_raw")[h] = sr[l][h];
      }
    }
  }

  // Expected, per layer: gates per head; masses as the mean over heads.
  double gate[2][2][3], massFj[2][2], massAff[2];
  for (int l = 0; l < 2; ++l) {
    massAff[l] = massFj[l][0] = massFj[l][1] = 0;
    for (int h = 0; h < 2; ++h) {
      double z = 0;
      for (int s = 0; s < 3; ++s) z += std::exp(gl[l][h][s]);
      for (int s = 0; s < 3; ++s) gate[l][h][s] = std::exp(gl[l][h][s]) / z;
      const double za = std::exp(al[l][h][0]) + std::exp(al[l][h][1]);
      for (int r = 0; r < 2; ++r)
        massFj[l][r] += 0.5 * gate[l][h][0] * std::exp(al[l][h][r]) / za *
                        std::hypot(zf[l][h][r][0], zf[l][h][r][1]);
      massAff[l] += 0.5 * gate[l][h][1] * softplus(sr[l][h]);
    }
  }
  const double tol = 1e-6;  // float32 raw tensors
  const std::vector<PositionParameters> layers = t.positionParametersByLayer();
  ASSERT_EQ(layers.size(), 2u);
  const char* gateName[3] = {"gate_FJ", "gate_affine", "gate_LC"};
  for (int l = 0; l < 2; ++l) {
    for (int s = 0; s < 3; ++s)
      for (int h = 0; h < 2; ++h)
        EXPECT_NEAR(layers[l].at(gateName[s]).at(h), gate[l][h][s], tol)
            << "layer " << l << " " << gateName[s] << " head " << h;
    EXPECT_NEAR(layers[l].at("mass_FJ0").at(0), massFj[l][0], tol) << "layer " << l;
    EXPECT_NEAR(layers[l].at("mass_FJ1").at(0), massFj[l][1], tol) << "layer " << l;
    EXPECT_NEAR(layers[l].at("mass_LC0").at(0), 0.0, tol) << "layer " << l;
    EXPECT_NEAR(layers[l].at("mass_affine").at(0), massAff[l], tol) << "layer " << l;
  }
  const PositionParameters mean = t.positionParametersMean();
  for (int s = 0; s < 3; ++s)
    for (int h = 0; h < 2; ++h)
      EXPECT_NEAR(mean.at(gateName[s]).at(h), 0.5 * (gate[0][h][s] + gate[1][h][s]), tol)
          << gateName[s] << " head " << h;
  EXPECT_NEAR(mean.at("mass_FJ0").at(0), 0.5 * (massFj[0][0] + massFj[1][0]), tol);
  EXPECT_NEAR(mean.at("mass_FJ1").at(0), 0.5 * (massFj[0][1] + massFj[1][1]), tol);
  EXPECT_NEAR(mean.at("mass_affine").at(0), 0.5 * (massAff[0] + massAff[1]), tol);
  // No key mixes the affine mass into a share of the FJ/LC masses.
  for (const auto& [name, values] : mean) EXPECT_EQ(name.find("share"), std::string::npos) << name;
  // A layer the model does not have reports nothing.
  EXPECT_EQ(t.positionParameters(2), PositionParameters{});
}

// The kernel diagnostics (MATH 4.2.1): shares are over the FJ and LC masses only; the affine
// row keeps its mass g_aff |slope| and has no share.
TEST(PjDiagnostics, AffineMassStandsApartFromTheShares) {
  PjShape shape{64, 1, false};
  PjHead h;
  h.omega = 0.3;
  h.kappa = 0.1;
  h.gates[0] = 0.5;
  h.gates[1] = 0.3;
  h.gates[2] = 0.2;
  h.slope = -2.0;  // |slope| enters the mass
  h.alphaFj = {0.25, 0.75};
  h.alphaLc = {1.0, 0.0};
  h.zetaFjRe = {3, 0};
  h.zetaFjIm = {4, 1};  // |zeta| 5, 1
  h.zetaLcRe = {0, 2};
  h.zetaLcIm = {0.5, 0};  // |zeta| 0.5, 2
  std::vector<double> lags;
  for (int d = 1; d < 64; ++d) lags.push_back(d);
  const PjDiagnostics diag = pjDiagnoseHead(shape, h, lags, {});
  // FJ0 0.5 .25 5, FJ1 0.5 .75 1, LC0 0.2 1 0.5, LC1 0: sum 0.625 + 0.375 + 0.1 = 1.1.
  const std::map<std::string, double> mass{
      {"FJ0", 0.625}, {"FJ1", 0.375}, {"LC0", 0.1}, {"LC1", 0.0}, {"affine0", 0.6}};
  ASSERT_EQ(diag.rows.size(), 5u);
  for (const auto& row : diag.rows) {
    const std::string key = row.sector + std::to_string(row.order);
    ASSERT_TRUE(mass.count(key)) << key;
    EXPECT_NEAR(row.mass, mass.at(key), 1e-12) << key;
    if (row.sector == "affine")
      EXPECT_TRUE(std::isnan(row.massShare));
    else
      EXPECT_NEAR(row.massShare, mass.at(key) / 1.1, 1e-12) << key;
  }
}

}  // namespace
}  // namespace poslab
