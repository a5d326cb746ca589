// PJ adaptive recovery (MATH 4.2.5, the PJ-RoPE reference's adaptive_spectrum_diagnostic.py): the
// targets and the kernel against their formulas written here with std::complex, the report's
// metrics against their definitions computed in the test, and a training run that recovers a
// target the kernel can represent.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include "analysis/pj_adaptive.h"
#include "util/error.h"

namespace poslab {
namespace {

constexpr double kAdaptivePi = 3.14159265358979323846;

double lcPhi(double d, double L) {
  return L * std::asinh(d / L);
}
double lcBeta(double d, double L) {
  return d / std::hypot(d, L);
}

TEST(PjAdaptive, TargetsMatchTheReferenceFormulas) {
  const double L = 1024, w = 2 * kAdaptivePi * 17 / L;
  const std::vector<double> d{0, 7, 700, 3000};
  auto at = [&](const std::string& name) { return pjAdaptiveTarget(name, L, w, d); };
  for (size_t n = 0; n < d.size(); ++n) {
    const double x = d[n] / L, c = std::cos(w * d[n]);
    const double lc = std::cos(w * lcPhi(d[n], L)) *
                      (1 + 0.4 * lcBeta(d[n], L) + 0.2 * std::pow(lcBeta(d[n], L), 2));
    EXPECT_NEAR(at("phase")[n], c, 1e-14);
    EXPECT_NEAR(at("linear")[n], x, 1e-14);
    EXPECT_NEAR(at("first_jet")[n], x * c, 1e-14);
    EXPECT_NEAR(at("second_jet")[n], x * x * std::exp(-0.1 * x) * c, 1e-13);
    EXPECT_NEAR(at("third_jet")[n], x * x * x * std::exp(-0.1 * x) * c, 1e-12);
    EXPECT_NEAR(at("recency_weak_jet")[n], -0.4 * x + 0.15 * x * x * c, 1e-13);
    EXPECT_NEAR(at("lc_core")[n], lc, 1e-13);
    EXPECT_NEAR(at("lc_affine")[n], lc - 0.25 * std::asinh(x), 1e-13);
    EXPECT_NEAR(at("affine")[n], -0.4 * x, 1e-14);
  }
  EXPECT_THROW(pjAdaptiveTarget("mixed_raw", L, w, d), InvalidArgument);
  EXPECT_EQ(pjAdaptiveTargetNames().size(), 9u);
}

PjAdaptiveParams sampleParams() {
  PjAdaptiveParams p;
  p.gateLogits = {0.3, -0.5, 0.1};
  p.fjAlphaLogits = {0.2, -0.1, 0.4, 0.0};
  p.lcAlphaLogits = {-0.3, 0.5, 0.0, 0.1};
  p.fjZetaRe = {0.7, -0.2, 0.5, 0.1};
  p.fjZetaIm = {0.1, 0.3, -0.4, 0.2};
  p.lcZetaRe = {-0.6, 0.2, 0.3, 0.05};
  p.lcZetaIm = {0.2, -0.1, 0.1, 0.3};
  p.affineSlope = -0.35;
  p.rawDamping = -1.0;
  return p;
}

std::vector<double> softmaxOf(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += std::exp(x);
  std::vector<double> out;
  for (double x : v) out.push_back(std::exp(x) / s);
  return out;
}

// The kernel term by term: gates and alphas as softmaxes, Re(zeta e^(i theta)) with std::complex.
double expectedKernel(const PjAdaptiveParams& p, double L, double w, double d, int onlyOrder = -1,
                      bool withAffine = true) {
  const auto g = softmaxOf({p.gateLogits[0], p.gateLogits[1], p.gateLogits[2]});
  const auto af = softmaxOf(p.fjAlphaLogits), al = softmaxOf(p.lcAlphaLogits);
  const double kappa = std::log1p(std::exp(p.rawDamping)), x = d / L;
  double k = withAffine ? g[1] * p.affineSlope * x : 0.0;
  double fact = 1;
  for (int r = 0; r < 4; ++r) {
    if (r > 0) fact *= r;
    if (onlyOrder >= 0 && r != onlyOrder) continue;
    const std::complex<double> zf(p.fjZetaRe[r], p.fjZetaIm[r]), zl(p.lcZetaRe[r], p.lcZetaIm[r]);
    k += g[0] * std::pow(x, r) / fact * std::exp(-kappa * x) * af[r] *
         std::real(zf * std::polar(1.0, w * d));
    k +=
        g[2] * std::pow(lcBeta(d, L), r) * al[r] * std::real(zl * std::polar(1.0, w * lcPhi(d, L)));
  }
  return k;
}

TEST(PjAdaptive, KernelMatchesItsFormula) {
  const PjAdaptiveParams p = sampleParams();
  const double L = 96, w = 2 * kAdaptivePi * 17 / L;
  const std::vector<double> d{0, 1, 50, 95, 400};
  const auto k = pjAdaptiveKernel(p, L, w, d);
  for (size_t n = 0; n < d.size(); ++n) EXPECT_NEAR(k[n], expectedKernel(p, L, w, d[n]), 1e-14);
}

// Every reported number from its definition: MSE and R^2 on d < L and d < T, the masses
// g alpha |zeta|, their normalised sum per order, and per order C_r = the order's FJ and LC terms:
// ||C_r|| / ||sum C||, MSE(pred - C_r) - MSE(pred).
TEST(PjAdaptive, EvaluateReportsTheDefinitions) {
  const PjAdaptiveParams p = sampleParams();
  PjAdaptiveSettings s;
  s.trainLength = 64;
  s.evalLength = 200;
  s.float64 = true;
  const double L = 64, w = 2 * kAdaptivePi * 17 / L;
  const PjAdaptiveResult r = pjAdaptiveEvaluate(p, s, "lc_affine");
  ASSERT_EQ(r.prediction.size(), 200u);
  std::vector<double> y, pred;
  for (int d = 0; d < 200; ++d) {
    const double lc =
        std::cos(w * lcPhi(d, L)) * (1 + 0.4 * lcBeta(d, L) + 0.2 * std::pow(lcBeta(d, L), 2));
    y.push_back(lc - 0.25 * std::asinh(d / L));
    pred.push_back(expectedKernel(p, L, w, d));
  }
  auto mseR2 = [&](int n) {
    double mean = 0, res = 0, tot = 0;
    for (int i = 0; i < n; ++i) mean += y[i] / n;
    for (int i = 0; i < n; ++i) {
      res += std::pow(pred[i] - y[i], 2);
      tot += std::pow(y[i] - mean, 2);
    }
    return std::make_pair(res / n, 1 - res / (tot + 1e-12));
  };
  EXPECT_NEAR(r.trainMse, mseR2(64).first, 1e-13);
  EXPECT_NEAR(r.trainR2, mseR2(64).second, 1e-12);
  EXPECT_NEAR(r.evalMse, mseR2(200).first, 1e-13);
  EXPECT_NEAR(r.evalR2, mseR2(200).second, 1e-12);

  const auto g = softmaxOf({0.3, -0.5, 0.1});
  const auto af = softmaxOf(p.fjAlphaLogits), al = softmaxOf(p.lcAlphaLogits);
  double total = 0;
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(r.fjMass[k], g[0] * af[k] * std::hypot(p.fjZetaRe[k], p.fjZetaIm[k]), 1e-15);
    EXPECT_NEAR(r.lcMass[k], g[2] * al[k] * std::hypot(p.lcZetaRe[k], p.lcZetaIm[k]), 1e-15);
    total += r.fjMass[k] + r.lcMass[k];
  }
  double sumNorm = 0;
  std::vector<std::vector<double>> C(4);
  for (int d = 0; d < 200; ++d) {
    double sum = 0;
    for (int k = 0; k < 4; ++k) {
      C[k].push_back(expectedKernel(p, L, w, d, k, /*withAffine=*/false));
      sum += C[k].back();
    }
    sumNorm += sum * sum;
  }
  sumNorm = std::sqrt(sumNorm);
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(r.orderMass[k], (r.fjMass[k] + r.lcMass[k]) / total, 1e-15);
    double norm = 0, removed = 0;
    for (int d = 0; d < 200; ++d) {
      norm += C[k][d] * C[k][d];
      removed += std::pow(pred[d] - C[k][d] - y[d], 2) / 200;
    }
    EXPECT_NEAR(r.energy[k], std::sqrt(norm) / (sumNorm + 1e-12), 1e-12);
    EXPECT_NEAR(r.loo[k], removed - mseR2(200).first, 1e-13);
  }
  EXPECT_NEAR(r.gates[1], g[1], 1e-15);
  EXPECT_NEAR(r.damping, std::log1p(std::exp(-1.0)), 1e-15);
}

TEST(PjAdaptive, InitialParametersAreTheReferences) {
  PjAdaptiveSettings s;
  const PjAdaptiveParams a = pjAdaptiveInitialParams(s, 0), b = pjAdaptiveInitialParams(s, 1);
  EXPECT_EQ(a.gateLogits, (std::array<double, 3>{0.0, -0.2, -0.2}));
  EXPECT_EQ(a.fjAlphaLogits, std::vector<double>(4, 0.0));
  EXPECT_EQ(a.rawDamping, -2.0);
  EXPECT_EQ(a.affineSlope, 0.0);
  ASSERT_EQ(a.fjZetaRe.size(), 4u);
  EXPECT_NE(a.fjZetaRe, b.fjZetaRe);  // restart k is seeded seed + 7919 k
  EXPECT_EQ(a.lcZetaIm, pjAdaptiveInitialParams(s, 0).lcZetaIm);
  for (double z : a.fjZetaRe) EXPECT_LT(std::abs(z), 0.25);  // 0.05 N(0, 1)
  s.orderInitCycle = true;
  const PjAdaptiveParams c = pjAdaptiveInitialParams(s, 6);  // 6 mod 4 = order 2
  EXPECT_EQ(c.fjAlphaLogits, (std::vector<double>{-2, -2, 2, -2}));
  EXPECT_EQ(c.lcAlphaLogits, c.fjAlphaLogits);
}

// The phase target is FJ order 0 exactly: Adam fits it in the window, carries most of it beyond,
// and puts its order mass on r = 0 (the other orders keep some mass and leak a little past L).
TEST(PjAdaptive, TrainingRecoversTheRepresentablePhase) {
  PjAdaptiveSettings s;
  s.trainLength = 256;
  s.evalLength = 1024;
  s.restarts = 1;
  s.float64 = true;
  const auto results = runPjAdaptive(s, {"phase"});
  ASSERT_EQ(results.size(), 1u);
  const PjAdaptiveResult& r = results[0];
  EXPECT_LT(r.trainMse, 1e-3);
  EXPECT_GT(r.evalR2, 0.9);
  EXPECT_EQ(r.topOrder, 0);
  EXPECT_GT(r.orderMass[0], 0.5);
  const PjAdaptiveResult untrained = pjAdaptiveEvaluate(pjAdaptiveInitialParams(s, 0), s, "phase");
  EXPECT_LT(r.evalMse, 0.1 * untrained.evalMse);
  // Training is seeded: the same restart gives the same parameters.
  s.steps = 50;
  EXPECT_EQ(pjAdaptiveTrain(s, "phase", 0).fjZetaRe, pjAdaptiveTrain(s, "phase", 0).fjZetaRe);
}

TEST(PjAdaptive, RejectsBadSettings) {
  PjAdaptiveSettings s;
  s.trainLength = 1;
  EXPECT_THROW(checkPjAdaptiveSettings(s), InvalidArgument);
  s = {};
  s.lr = 0;
  EXPECT_THROW(checkPjAdaptiveSettings(s), InvalidArgument);
  s = {};
  s.maxOrder = 9;
  EXPECT_THROW(checkPjAdaptiveSettings(s), InvalidArgument);
  s = {};
  s.omegaCycles = std::nan("");
  EXPECT_THROW(checkPjAdaptiveSettings(s), InvalidArgument);
  EXPECT_THROW(runPjAdaptive({}, {"no_such_target"}), InvalidArgument);
}

}  // namespace
}  // namespace poslab
