// Analysis (MATH 4.2 PJ diagnostics, least squares; the kernel probe is in test_kernel_probe.cpp),
// feature norms, attention maps, and the atomic file write, each against an independent
// expectation.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "analysis/attention_map.h"
#include "analysis/feature_norms.h"
#include "analysis/least_squares.h"
#include "analysis/pj_diagnostics.h"
#include "encodings/pj_bias.h"
#include "encodings/registry.h"
#include "io/atomic_file.h"
#include "tasks/lag_kernels.h"
#include "util/error.h"

namespace poslab {
namespace {

// A target inside the span is fitted exactly; a dependent column does not break the fit.
TEST(LeastSquares, RecoversPolynomialWithCollinearColumns) {
  std::vector<double> x, one, lin, lin2, quad, y;
  for (int i = 0; i < 50; ++i) {
    const double t = i / 7.0;
    x.push_back(t);
    one.push_back(1);
    lin.push_back(t);
    lin2.push_back(3 * t);  // collinear with lin
    quad.push_back(t * t);
    y.push_back(2 - 0.5 * t + 0.25 * t * t);
  }
  LeastSquaresFit fit = leastSquares({one, lin, lin2, quad}, y);
  EXPECT_LT(fit.mse, 1e-24);
  EXPECT_EQ(fit.rank, 3);
  EXPECT_NEAR(fit.coefficients[0], 2, 1e-10);
  EXPECT_NEAR(fit.coefficients[3], 0.25, 1e-10);
  EXPECT_NEAR(fit.coefficients[1] + 3 * fit.coefficients[2], -0.5, 1e-10);
}

// Residual of a projection onto {1}: the variance.
TEST(LeastSquares, ResidualIsVarianceForConstantBasis) {
  std::vector<double> one(4, 1.0), y{1, 2, 3, 4};
  EXPECT_NEAR(leastSquares({one}, y).mse, 1.25, 1e-14);
}

// MATH 3.2.1 target kernels at hand-computed points.
TEST(LagKernels, MatchSpecFormulas) {
  LagKernelParams p;
  p.L = 100;
  p.omega = 0.3;
  p.omega2 = 0.7;
  p.gamma = 0.02;
  const std::vector<double> d{0, 5, 50};
  auto raw = lagKernel("mixed_raw", p, d);
  auto bounded = lagKernel("mixed_bounded", p, d);
  auto damped = lagKernel("damped_mixed", p, d);
  auto rhythm = lagKernel("rhythm_envelope", p, d);
  auto jet = lagKernel("high_jet_r3", p, d);
  EXPECT_NEAR(raw[2], 0.5 * std::cos(15.0), 1e-15);
  EXPECT_NEAR(bounded[2], (50.0 / 1.5) / 100 * std::cos(15.0), 1e-15);
  EXPECT_NEAR(damped[1], std::exp(-0.1) * (std::cos(1.5) + 0.75 * 0.05 * std::sin(1.5)), 1e-15);
  EXPECT_NEAR(rhythm[2], (0.25 + 0.85 * 0.5) * (0.65 * std::cos(15.0) + 0.35 * std::sin(35.0)),
              1e-15);
  EXPECT_NEAR(jet[2], 0.125 * std::cos(15.0), 1e-15);
  EXPECT_THROW(lagKernel("high_jet_rx", p, d), InvalidArgument);
  EXPECT_THROW(lagKernel("mystery", p, d), InvalidArgument);
}

PjHead unitHead(long long R) {
  PjHead h;
  h.omega = 0.1;
  h.kappa = 0.0;
  h.slope = 0.0;
  h.alphaFj.assign(R + 1, 0.0);
  h.alphaLc.assign(R + 1, 0.0);
  h.zetaFjRe.assign(R + 1, 1.0);
  h.zetaFjIm.assign(R + 1, 0.0);
  h.zetaLcRe = h.zetaFjRe;
  h.zetaLcIm = h.zetaFjIm;
  return h;
}

// Energy and LOO of a kernel made of one component: that component has energy 1 and its LOO is the
// whole MSE increase; the others are 0 (MATH 4.2 definitions).
TEST(PjDiagnostics, SingleComponentCarriesEnergyAndLoo) {
  PjShape shape{64, 2, false};
  PjHead h = unitHead(2);
  h.gates[0] = 1;
  h.gates[1] = 0;
  h.gates[2] = 0;
  h.alphaFj[1] = 0.5;
  h.zetaFjRe[1] = 3;
  h.zetaFjIm[1] = 4;  // |zeta| = 5 -> mass 1 * 0.5 * 5
  std::vector<double> lags, target;
  for (int d = 1; d < 64; ++d) {
    lags.push_back(d);
    target.push_back(pjKernel(shape, h, d));
  }
  PjDiagnostics diag = pjDiagnoseHead(shape, h, lags, target);
  EXPECT_NEAR(diag.kernelMse, 0, 1e-30);
  double shareSum = 0;
  for (const auto& row : diag.rows) {
    if (row.sector == "affine")
      EXPECT_TRUE(std::isnan(row.massShare));  // the affine mass has no share (MATH 4.2.1)
    else
      shareSum += row.massShare;
    if (row.sector == "FJ" && row.order == 1) {
      EXPECT_NEAR(row.mass, 2.5, 1e-12);
      EXPECT_NEAR(row.energy, 1.0, 1e-12);
      double msq = 0;
      for (double t : target) msq += t * t;
      EXPECT_NEAR(row.loo, msq / target.size(), 1e-12);
    } else {
      EXPECT_EQ(row.energy, 0.0) << row.sector << row.order;
      EXPECT_NEAR(row.loo, 0.0, 1e-15);
    }
  }
  EXPECT_NEAR(shareSum, 1.0, 1e-12);
}

// Fitting the PJ basis to a kernel built from known coefficients reproduces it, and the
// diagnostics put the mass where the coefficients were.
TEST(PjDiagnostics, FitRecoversKnownHead) {
  PjShape shape{128, 3, false};
  PjHead h = unitHead(3);
  h.kappa = 0.3;
  h.gates[0] = 0.7;
  h.gates[1] = 0.3;
  h.gates[2] = 0.0;
  h.slope = 0.8;
  h.alphaFj[2] = 1.0;
  h.zetaFjIm[2] = -0.5;
  std::vector<double> lags, target;
  for (int d = 1; d < 128; ++d) {
    lags.push_back(d);
    target.push_back(pjKernel(shape, h, d));
  }
  PjFit fit = pjFitAndDiagnose(shape, h.omega, h.kappa, lags, target);
  EXPECT_LT(fit.diagnostics.kernelMse, 1e-20);
  double fj2 = 0, affine = 0;
  for (const auto& row : fit.diagnostics.rows) {
    if (row.sector == "FJ" && row.order == 2) fj2 = row.mass;
    if (row.sector == "affine") affine = row.mass;
  }
  EXPECT_NEAR(fj2, 0.7 * std::hypot(1.0, 0.5), 1e-6);
  EXPECT_NEAR(affine, 0.3 * 0.8, 1e-6);
}

// RoPE is unitary: |q'| = |q| at every position. Exact Jordan with decay: the query shrinks as
// e^(-gamma p) times the shear's growth; float32 fails where MATH 1.7.3 says, float64 does not.
TEST(FeatureNorms, RopeIsUnitaryAndJordanGrowsAsPredicted) {
  auto rope = makeEncoding("rope");
  NormProfile rp = featureNormProfile(*rope, {0, 10, 1000, 32768});
  for (const auto& row : rp.rows) {
    EXPECT_NEAR(row.log10QueryRatio, 0.0, 1e-12);
    EXPECT_NEAR(row.log10KeyRatio, 0.0, 1e-12);
  }
  EXPECT_TRUE(rp.float32.ok);

  auto jordan = makeEncoding("jordan-exact", {{"gamma", 0.01}, {"eta", 0.0}});
  NormProfile jp = featureNormProfile(*jordan, {0, 100, 32768});
  EXPECT_NEAR(jp.rows[1].log10KeyRatio, 0.01 * 100 / std::log(10.0), 1e-9);
  EXPECT_NEAR(jp.rows[2].log10QueryRatio, -0.01 * 32768 / std::log(10.0), 1e-6);
  EXPECT_FALSE(jp.float32.ok);
  EXPECT_LT(jp.float32.firstBadPosition, 32768);
  EXPECT_TRUE(jp.float64.ok);
}

// The norm gain each family reports (its log-space formula) equals the norm of what its
// factorized transform actually produces, for every family with a factorized form, query and key
// side, at positions where float64 holds the transform comfortably.
TEST(FeatureNorms, ReportedGainMatchesTheFactorizedTransform) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(7);
  int checked = 0;
  for (const FamilyInfo* info : allFamilies()) {
    const std::string& id = info->id;
    auto enc = makeEncoding(id);
    if (!enc->hasFactorized()) continue;
    const long long D = enc->headDim();
    at::Tensor x = at::randn({D}, gen, at::TensorOptions().dtype(at::kDouble));
    const std::vector<double> xs(x.data_ptr<double>(), x.data_ptr<double>() + D);
    for (long long p : {0LL, 5LL, 40LL}) {
      at::Tensor pos = at::full({1}, static_cast<int64_t>(p), at::TensorOptions().dtype(at::kLong));
      at::Tensor v = x.view({1, 1, 1, D}).expand({1, enc->heads(), 1, D}).contiguous();
      FactorizedQK f = enc->factorize(v, v, pos, pos);  // (1, H, 1, F), head 0 compared
      const double xx = x.pow(2).sum().item<double>();
      const double qGain = std::log(f.q[0][0].pow(2).sum().item<double>() / xx);
      const double kGain = std::log(f.k[0][0].pow(2).sum().item<double>() / xx);
      EXPECT_NEAR(enc->featureLogNormGain(xs, p, true), qGain, 1e-9) << id << " p=" << p;
      EXPECT_NEAR(enc->featureLogNormGain(xs, p, false), kGain, 1e-9) << id << " p=" << p;
    }
    ++checked;
  }
  EXPECT_GE(checked, 10);  // RoPE and its variants, exact Jordan, PoPE, xPos, ...
}

// The LC sector bounds the logit scale at long range; ALiBi's grows linearly with the lag.
TEST(FeatureNorms, LightConeBoundsLogitScaleAlibiDoesNot) {
  auto lc = makeEncoding("pj-bias", {{"g_fj", 0}, {"g_aff", 0}, {"g_lc", 1}});
  NormProfile lp = featureNormProfile(*lc, {1000, 32768});
  EXPECT_NEAR(lp.rows[1].logitScale, lp.rows[0].logitScale, 0.05 * lp.rows[0].logitScale + 1);
  auto alibi = makeEncoding("alibi");
  NormProfile ap = featureNormProfile(*alibi, {1000, 32768});
  EXPECT_GT(ap.rows[1].logitScale, 10 * ap.rows[0].logitScale);
}

// The lag shortcut (one row at the largest position, running max over the lag) gives the
// row-per-position reference's logit scale for relative families, multi-head ones included.
TEST(FeatureNorms, LagShortcutMatchesRowPerPositionReference) {
  const std::vector<long long> grid = {0, 1, 7, 100, 1000, 5000};
  for (const char* family : {"rope", "alibi", "jordan-exact", "pj-bias", "xpos"}) {
    auto enc = makeEncoding(family);
    ASSERT_TRUE(enc->isRelative()) << family;
    const NormProfile fast = featureNormProfile(*enc, grid, 0, true);
    const NormProfile ref = featureNormProfile(*enc, grid, 0, false);
    for (size_t i = 0; i < grid.size(); ++i)
      EXPECT_NEAR(fast.rows[i].logitScale, ref.rows[i].logitScale,
                  1e-9 * std::max(1.0, std::abs(ref.rows[i].logitScale)))
          << family << " at p = " << grid[i];
  }
  // Not relative: the reference path is used, so both agree exactly.
  auto abs = makeEncoding("jordan-stabilized-abs");
  ASSERT_FALSE(abs->isRelative());
  EXPECT_EQ(featureNormProfile(*abs, grid).rows[4].logitScale,
            featureNormProfile(*abs, grid, 0, false).rows[4].logitScale);
}

// Rows are distributions over j <= i; relative families have Toeplitz logits, absolute shear not.
TEST(AttentionMap, RowsSumToOneAndToeplitzOnlyForRelative) {
  auto enc = makeEncoding("jordan-stabilized", {{"gamma", 0.01}, {"eta", 0.5}, {"L", 16}});
  AttentionMap m = positionalAttentionMap(*enc, 48, 0);
  for (long long i = 0; i < m.T; ++i) {
    double sum = 0;
    for (long long j = 0; j < m.T; ++j) {
      sum += m.weights[i * m.T + j];
      if (j > i) EXPECT_EQ(m.weights[i * m.T + j], 0.0);
    }
    EXPECT_NEAR(sum, 1.0, 1e-12);
  }
  EXPECT_LT(m.toeplitzDeviation(), 1e-9);
  auto abs = makeEncoding("jordan-stabilized-abs", {{"gamma", 0.01}, {"eta", 0.5}, {"L", 16}});
  EXPECT_GT(positionalAttentionMap(*abs, 48, 0).toeplitzDeviation(), 1e-3);
  EXPECT_THROW(checkMapFits(1'000'000, 1), InvalidArgument);
}

// A write that fails midway leaves the previous file as it was.
TEST(AtomicFile, FailedWriteKeepsPreviousFile) {
  const auto path = std::filesystem::temp_directory_path() / "poslab_atomic_test.txt";
  writeFileAtomically(path.string(), [](std::ostream& os) { os << "first"; });
  EXPECT_THROW(writeFileAtomically(path.string(),
                                   [](std::ostream& os) {
                                     os << "partial";
                                     throw Error("simulated failure");
                                   }),
               Error);
  std::ifstream in(path);
  std::string content;
  in >> content;
  EXPECT_EQ(content, "first");
  std::filesystem::remove(path);
  EXPECT_THROW(writeFileAtomically("/nonexistent-dir/x.txt", [](std::ostream&) {}), Error);
}

}  // namespace
}  // namespace poslab
