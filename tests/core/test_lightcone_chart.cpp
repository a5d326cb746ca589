// The light-cone chart as a transform (MATH 4.3.1): the transformed dot product against the
// chart-difference kernel written here with std::complex, its norm bound at any position, and the
// norms profile beside an exact factorized form that overflows float32 before 32,768.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include "analysis/feature_norms.h"
#include "analysis/lightcone_chart.h"
#include "encodings/registry.h"
#include "util/error.h"

namespace poslab {
namespace {

std::vector<double> sampleVector(int D, double phase) {
  std::vector<double> x;
  for (int n = 0; n < D; ++n) x.push_back(std::sin(1.3 * n + phase) + 0.2 * n / D);
  return x;
}

// q'(i) . k'(j) = Re sum_b e^(i w_b (phi(i) - phi(j))) sum_r (du)^r / r! sum_l conj(q_l) k_(l+r),
// du = eta (beta(i) - beta(j)).
TEST(LightConeChart, DotProductIsTheChartDifferenceKernel) {
  LightConeChart c;
  c.L = 300;
  c.order = 3;
  c.eta = 0.7;
  c.headDim = 12;
  const auto q = sampleVector(12, 0.1), k = sampleVector(12, 2.0);
  auto phi = [&](double p) { return c.L * std::asinh(p / c.L); };
  auto beta = [&](double p) { return p / std::sqrt(p * p + c.L * c.L); };
  for (auto [i, j] : {std::pair{5.0, 5.0}, {40.0, 3.0}, {9000.0, 20.0}, {2.0, 700.0}}) {
    const auto qi = lightConeTransform(c, q, i, true), kj = lightConeTransform(c, k, j, false);
    double dot = 0;
    for (int n = 0; n < 12; ++n) dot += qi[n] * kj[n];
    double expected = 0;
    const double du = c.eta * (beta(i) - beta(j));
    for (int b = 0; b < 2; ++b) {
      const double w = std::pow(10000.0, -2.0 * b / 12);
      std::complex<double> s = 0;
      double coef = 1;
      for (int r = 0; r < 3; ++r) {
        if (r > 0) coef *= du / r;
        for (int l = 0; l + r < 3; ++l) {
          const std::complex<double> ql(q[6 * b + 2 * l], q[6 * b + 2 * l + 1]);
          const std::complex<double> kl(k[6 * b + 2 * (l + r)], k[6 * b + 2 * (l + r) + 1]);
          s += coef * std::conj(ql) * kl;
        }
      }
      expected += std::real(std::polar(1.0, w * (phi(i) - phi(j))) * s);
    }
    EXPECT_NEAR(dot, expected, 1e-12) << "i = " << i << ", j = " << j;
  }
}

// |beta| < 1: no position, however far, takes a norm ratio past sum_r eta^r / r!.
TEST(LightConeChart, NormsStayBelowTheBoundAtAnyPosition) {
  LightConeChart c;  // L 1024, order 2, eta 1: bound 2
  c.headDim = 16;
  EXPECT_DOUBLE_EQ(lightConeNormBound(c), 2.0);
  const auto x = sampleVector(16, 0.4);
  for (double p : {0.0, 1.0, 1024.0, 32768.0, 1e7}) {
    for (bool query : {true, false}) {
      const double gain = lightConeLogNormGain(c, x, p, query);
      EXPECT_LE(0.5 * gain, std::log(2.0) + 1e-12);
      EXPECT_TRUE(std::isfinite(gain));
    }
  }
  EXPECT_NEAR(lightConeLogNormGain(c, x, 0, true), 0.0, 1e-14);  // beta(0) = 0: a rotation
  c.headDim = 18;                                                // not divisible by 4
  EXPECT_THROW(lightConeTransform(c, sampleVector(18, 0), 1, true), InvalidArgument);
}

// jordan-scaled at c = 1, L = 256 (gamma = 1/256): its exact factorized key factor e^(p/256)
// overflows float32 before 32,768, while the chart of the same L stays below its bound.
TEST(LightConeChart, ProfileShowsTheChartBoundedWhereTheExactFormOverflows) {
  auto enc = makeEncoding("jordan-scaled", {{"c", 1.0}, {"L", 256.0}});
  const NormProfile prof = featureNormProfile(*enc, logPositionGrid(32768, 4));
  EXPECT_FALSE(prof.float32.ok);
  EXPECT_EQ(prof.float32.problem, "overflow");
  EXPECT_LT(prof.float32.firstBadPosition, 32768);
  EXPECT_EQ(prof.chart.L, 256.0);
  EXPECT_GT(prof.rows.back().log10KeyRatio, 38.5);  // beyond float32's 3.4e38
  for (const auto& row : prof.rows) {
    EXPECT_LE(row.log10ChartQueryRatio, std::log10(prof.chartNormBound) + 1e-12);
    EXPECT_LE(row.log10ChartKeyRatio, std::log10(prof.chartNormBound) + 1e-12);
  }
}

}  // namespace
}  // namespace poslab
