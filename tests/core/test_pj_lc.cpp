// PJ-RoPE light-cone chart and gates (MATH 1.8): the LC sector stays bounded at any length while
// its phase coordinate phi_L(d) = L asinh(d/L) grows only logarithmically past L; the FJ jets grow
// like (d/L)^r without damping. Gates are normalised to sum 1; all-zero gates are rejected.
// Float64 throughout. Tolerances stated per check.
#include <gtest/gtest.h>

#include <cmath>

#include "encodings/pj_bias.h"
#include "encodings/pj_kernel.h"
#include "encodings/registry.h"
#include "test_support.h"
#include "util/error.h"

namespace poslab {
namespace {

constexpr double kPjLcL = 64;

// d = 10^(k/8), k = 0..48: a log grid from 1 to 10^6.
std::vector<double> logGrid() {
  std::vector<double> lags;
  for (int k = 0; k <= 48; ++k) lags.push_back(std::pow(10.0, k / 8.0));
  return lags;
}

const std::vector<double>& column(const LagBasis& b, const std::string& name) {
  for (size_t n = 0; n < b.names.size(); ++n)
    if (b.names[n] == name) return b.columns[n];
  ADD_FAILURE() << "no column " << name;
  static const std::vector<double> empty;
  return empty;
}

// MATH 1.8.2: bounded at any length: |LC_r| <= beta^r <= 1 for d up to 10^6 (tolerance 1e-15),
// and beta_L(d) = d / sqrt(d^2 + L^2) -> 1 (read back as the LC1 amplitude; within 1e-8 at 10^6).
TEST(PjLightCone, LcColumnsBoundedAndBetaSaturatesAtOneMillion) {
  const auto lags = logGrid();
  LagBasis b = pjBasis(PjShape{kPjLcL, /*order=*/3, false}, /*omega=*/0.2, /*kappa=*/0.0, lags);
  long long lcColumns = 0;
  for (size_t n = 0; n < b.names.size(); ++n) {
    if (b.names[n].rfind("LC", 0) != 0) continue;
    ++lcColumns;
    for (double v : b.columns[n]) EXPECT_LE(std::abs(v), 1.0 + 1e-15) << b.names[n];
  }
  EXPECT_EQ(lcColumns, 8);  // cos and sin for r = 0..3
  const auto& c1 = column(b, "LC1_cos");
  const auto& s1 = column(b, "LC1_sin");
  double prev = 0;
  for (size_t t = 0; t < lags.size(); ++t) {
    const double beta = std::hypot(c1[t], s1[t]);
    EXPECT_NEAR(beta, lags[t] / std::sqrt(lags[t] * lags[t] + kPjLcL * kPjLcL), 1e-14);
    EXPECT_GE(beta, prev);  // monotone towards its limit
    prev = beta;
  }
  EXPECT_NEAR(prev, 1.0, 1e-8);  // 1 - beta(10^6) = L^2 / (2 d^2) ~ 2e-9
}

// phi_L(d) = L asinh(d/L) ~ L ln(2d/L) past L: one decade of d adds L ln 10 of phase coordinate.
// Read back from LC0 = (cos, sin)(omega phi) with omega small enough that omega * phi < pi.
// Tolerances: phi itself 1e-9 relative; the decade step within 1e-3 relative of L ln 10.
TEST(PjLightCone, PhiGrowsLogarithmically) {
  constexpr double omega = 1e-3;  // omega * phi_L(10^6) = 0.66 rad: atan2 does not wrap
  const std::vector<double> lags = {1e5, 1e6};
  LagBasis b = pjBasis(PjShape{kPjLcL, 1, false}, omega, 0.0, lags);
  const auto& c0 = column(b, "LC0_cos");
  const auto& s0 = column(b, "LC0_sin");
  std::vector<double> phi;
  for (size_t t = 0; t < lags.size(); ++t) {
    phi.push_back(std::atan2(s0[t], c0[t]) / omega);
    EXPECT_NEAR(phi[t], kPjLcL * std::asinh(lags[t] / kPjLcL), 1e-9 * phi[t]);
  }
  const double step = phi[1] - phi[0];
  EXPECT_NEAR(step, kPjLcL * std::log(10.0), 1e-3 * kPjLcL * std::log(10.0));
  EXPECT_LT(phi[1], 1e-3 * 1e6);  // the linear coordinate d would be 1500x larger
}

// The FJ jets by contrast grow: with kappa = 0 the order-r amplitude is (d/L)^r / r!, 15625 at
// order 1 and d = 10^6 (tolerance 1e-12 relative), and is unbounded for every order >= 1.
TEST(PjLightCone, FourierJetColumnsGrowWithoutDamping) {
  const auto lags = logGrid();
  LagBasis b = pjBasis(PjShape{kPjLcL, 3, false}, 0.2, /*kappa=*/0.0, lags);
  double fact = 1;
  for (int r = 0; r <= 3; ++r) {
    if (r > 0) fact *= r;
    const auto& c = column(b, "FJ" + std::to_string(r) + "_cos");
    const auto& s = column(b, "FJ" + std::to_string(r) + "_sin");
    for (size_t t = 0; t < lags.size(); ++t) {
      const double want = std::pow(lags[t] / kPjLcL, r) / fact;
      EXPECT_NEAR(std::hypot(c[t], s[t]), want, 1e-12 * want) << "FJ" << r << " d " << lags[t];
    }
    const double last = std::hypot(c.back(), s.back());
    if (r >= 1)
      EXPECT_GT(last, 1e4) << "FJ" << r << " at d = 10^6";
    else
      EXPECT_NEAR(last, 1.0, 1e-12);
  }
}

// Gate normalisation (MATH 1.8.2, gates sum to 1): g_fj = 1 (or 0.5), g_aff = g_lc = 0 leaves the
// FJ sum alone at full weight. The FJ sum is written here from the formula with the initial
// coefficients: alpha_r = 1/(R+1), zeta_r = 1, kappa = softplus(-2), omega_1 = 2 pi / L (head 1).
// Checked on the kernel view and on the bias the attention code adds (tolerance 1e-12).
TEST(PjLightCone, PjBiasGatesNormaliseToTheFjSumAlone) {
  constexpr long long R = 3;
  const double kappa = std::log1p(std::exp(-2.0));
  const double omega = 2 * M_PI / kPjLcL;
  auto fjSum = [&](double d) {
    double sum = 0, fact = 1;
    for (long long r = 0; r <= R; ++r) {
      if (r > 0) fact *= static_cast<double>(r);
      sum += std::pow(d / kPjLcL, static_cast<double>(r)) / fact * std::exp(-kappa * d / kPjLcL) *
             (1.0 / (R + 1)) * std::cos(omega * d);
    }
    return sum;
  };
  const std::vector<double> lags = lagRange(0, 300);
  for (double g : {1.0, 0.5}) {
    auto enc = makeEncoding(
        "pj-bias",
        {{"L", kPjLcL}, {"heads", 3}, {"order", R}, {"g_fj", g}, {"g_aff", 0}, {"g_lc", 0}});
    LagBasis b = enc->basis(lags);
    for (size_t n = 0; n < lags.size(); ++n)
      EXPECT_NEAR(b.kernel[n], fjSum(lags[n]), 1e-12 * (1 + std::abs(fjSum(lags[n]))))
          << "g_fj = " << g << ", d = " << lags[n];
    at::Tensor bias =
        enc->bias(3, testing::positions(299, 1), testing::positions(0, 300), at::kDouble);
    for (long long j = 0; j < 300; ++j) {
      const double want = fjSum(299.0 - j);
      EXPECT_NEAR(bias[0][0][j].item<double>(), want, 1e-12 * (1 + std::abs(want)))
          << "d " << 299 - j;
    }
  }
}

// Every sector disabled: the softmax over gates has nothing to normalise, so building it fails.
TEST(PjLightCone, AllGatesZeroThrowsInvalidArgument) {
  try {
    makeEncoding("pj-bias", {{"g_fj", 0}, {"g_aff", 0}, {"g_lc", 0}});
    FAIL() << "all-zero gates were accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("g_fj"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace poslab
