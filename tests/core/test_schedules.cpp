// Frequency, slope and scale schedules (MATH 1.2, 1.3) against published values and against the
// formulas re-derived here by hand, independently of core/encodings/schedules.cpp. Float64.
// Tolerances: exact for powers of two, 1e-12 relative elsewhere (pow/log rounding), 1e-9 for
// hand-computed decimals and for logit ratios.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "encodings/registry.h"
#include "encodings/rope_like.h"
#include "encodings/schedules.h"
#include "test_support.h"

namespace poslab {
namespace {

using testing::positions;

void expectRelNear(const std::vector<double>& got, const std::vector<double>& want, double tol,
                   const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t n = 0; n < got.size(); ++n)
    EXPECT_NEAR(got[n], want[n], tol * std::abs(want[n])) << what << " [" << n << "]";
}

const std::vector<double>& frequenciesOf(const Encoding& enc) {
  return dynamic_cast<const RopeLikeEncoding&>(enc).frequencies();
}

// ALiBi paper (Press et al.), published slopes: H = 8 gives 1/2 .. 1/256; H = 4 gives 1/4 .. 1/256;
// H = 6 (not a power of two) takes H = 4's four, then every other slope of H = 8: 1/2, 1/8.
TEST(Schedules, AlibiSlopesMatchPublishedValues) {
  const std::vector<double> h4 = {0.25, 0.0625, 0.015625, 0.00390625};
  const std::vector<double> h8 = {0.5,     0.25,     0.125,     0.0625,
                                  0.03125, 0.015625, 0.0078125, 0.00390625};
  const std::vector<double> h6 = {0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125};
  EXPECT_EQ(alibiSlopes(4), h4);  // powers of two: exact
  EXPECT_EQ(alibiSlopes(8), h8);
  EXPECT_EQ(alibiSlopes(6), h6);
  // The family's bias uses them: b_h at lag 1 is -m_h.
  auto enc = makeEncoding("alibi", {{"heads", 6}});
  at::Tensor b = enc->bias(6, positions(1, 1), positions(0, 1), at::kDouble).flatten();
  for (long long h = 0; h < 6; ++h) EXPECT_EQ(b[h].item<double>(), -h6[h]) << "head " << h + 1;
}

// PI: theta'_c = theta_c / s, theta_c = base^(-2c/D).
TEST(Schedules, PositionInterpolationDividesFrequenciesByScale) {
  constexpr long long D = 16;
  constexpr double s = 4;
  std::vector<double> want;
  for (long long c = 0; c < D / 2; ++c) want.push_back(std::pow(10000.0, -2.0 * c / D) / s);
  expectRelNear(piFrequencies(D, 10000, s), want, 1e-12, "piFrequencies");
  expectRelNear(frequenciesOf(*makeEncoding("rope-pi", {{"scale", s}, {"head_dim", D}})), want,
                1e-12, "rope-pi");
}

// NTK-aware: base' = base * s^(D/(D-2)). D = 16, s = 4: 10000 * 4^(8/7) = 10000 * 2^(16/7)
// = 48760.546168179 (by hand: 2^(16/7) = e^(1.584336...) = 4.8760546...).
TEST(Schedules, NtkBaseMatchesHandComputedValue) {
  EXPECT_NEAR(ntkBase(16, 10000, 4), 48760.546168179, 1e-6);
  std::vector<double> want;
  for (long long c = 0; c < 8; ++c) want.push_back(std::pow(48760.546168179, -2.0 * c / 16));
  expectRelNear(frequenciesOf(*makeEncoding("rope-ntk", {{"scale", 4}, {"head_dim", 16}})), want,
                1e-9, "rope-ntk");
}

// YaRN, written from MATH 1.2.3 (the reference's blend by rotation count).
struct YarnCase {
  long long D;
  double base, s, Ltrain;
};

// The PJ-RoPE reference's yarn_inv_freq written out: r = L theta / (2 pi) turns over the training
// length, weight w = clamp((r - 1) / 31, 0, 1) on theta and 1 - w on theta / s.
std::vector<double> yarnByHand(const YarnCase& y) {
  std::vector<double> out;
  for (long long c = 0; c < y.D / 2; ++c) {
    const double theta = std::pow(y.base, -2.0 * c / y.D);
    double w = (y.Ltrain * theta / (2 * 3.14159265358979323846) - 1) / 31;
    w = w < 0 ? 0 : (w > 1 ? 1 : w);
    out.push_back(theta / y.s * (1 - w) + theta * w);
  }
  return out;
}

TEST(Schedules, YarnFrequenciesAndTemperatureMatchHandComputation) {
  const std::vector<YarnCase> cases = {
      {16, 10000, 8, 64},     // every pair turns fewer than 32 times over 64: all blended or scaled
      {128, 10000, 4, 4096},  // the fast pairs (r >= 32) keep theta, the slow ones theta / 4
      {4, 10000, 2, 1e5},
  };
  for (const auto& y : cases) {
    const std::string what = "yarn D=" + std::to_string(y.D);
    const auto want = yarnByHand(y);
    expectRelNear(yarnFrequencies(y.D, y.base, y.s, y.Ltrain), want, 1e-12, what);
    auto enc = makeEncoding("rope-yarn", {{"head_dim", static_cast<double>(y.D)},
                                          {"base", y.base},
                                          {"scale", y.s},
                                          {"L", y.Ltrain}});
    expectRelNear(frequenciesOf(*enc), want, 1e-12, what + " family");
    // Temperature 0.1 ln s + 1 on q and k each, so the logit factor is its square over sqrt(D).
    const double temp = 0.1 * std::log(y.s) + 1;
    EXPECT_NEAR(yarnTemperature(y.s), temp, 1e-15) << what;
    EXPECT_NEAR(enc->scoreScale(), temp * temp / std::sqrt(static_cast<double>(y.D)), 1e-15)
        << what;
  }
  EXPECT_NEAR(yarnTemperature(8), 1.2079441541679836, 1e-12);  // 0.1 ln 8 + 1 by hand
  // By hand. D = 16, L = 64, s = 8: pair 0 (theta 1) turns 64 / 2pi = 10.18592 times, so
  // w = 9.18592 / 31 = 0.296320 and theta' = 0.125 * 0.703680 + 0.296320 = 0.384280; pair 5
  // (theta 10^-2.5) turns 0.0322 times: theta / 8.
  const auto f = yarnFrequencies(16, 10000, 8, 64);
  EXPECT_NEAR(f[0], 0.384280, 1e-6);
  EXPECT_NEAR(f[5], std::pow(10000.0, -0.625) / 8, 1e-16);
  // D = 128, L = 4096, s = 4: pair 0 turns 651.9 times (kept); pair 63 (theta 10^-3.9375) turns
  // 0.075 times (theta / 4).
  const auto g = yarnFrequencies(128, 10000, 4, 4096);
  EXPECT_DOUBLE_EQ(g[0], 1.0);
  EXPECT_NEAR(g[63], std::pow(10000.0, -126.0 / 128) / 4, 1e-18);
}

// xPos: zeta_c = (2c + 0.4 D) / (1.4 D). D = 16 by hand: zeta_0 = 6.4/22.4 = 2/7, zeta_7
// = 20.4/22.4.
TEST(Schedules, XposZetaMatchesFormula) {
  const auto z = xposZeta(16);
  ASSERT_EQ(z.size(), 8u);
  EXPECT_NEAR(z[0], 2.0 / 7.0, 1e-15);
  EXPECT_NEAR(z[7], 20.4 / 22.4, 1e-15);
  for (long long c = 0; c < 8; ++c) EXPECT_NEAR(z[c], (2.0 * c + 6.4) / 22.4, 1e-15);
}

// xPos logits = RoPE logits * zeta_c^(d/512) for content in a single pair c (q scaled by
// zeta^(i/512), k by zeta^(-j/512)). Pair 0 has the strongest decay (2/7 per 512 lags), the last
// pair the weakest; the ratio is checked where RoPE's score is not near a zero crossing.
TEST(Schedules, XposLogitsDecayAsZetaPowerLagOver512) {
  constexpr long long D = 16, Tk = 1025;  // lags 0..1024: the ratio reaches zeta^2
  auto xpos = makeEncoding("xpos", {{"head_dim", D}});
  auto rope = makeEncoding("rope", {{"head_dim", D}});
  const auto zeta = xposZeta(D);
  for (long long c : {0LL, D / 2 - 1}) {
    at::Tensor q = at::zeros({1, 1, 1, D}, at::kDouble), k = at::zeros({1, 1, Tk, D}, at::kDouble);
    q[0][0][0][2 * c] = 1.0;
    k.select(-1, 2 * c).fill_(1.0);  // s_rope = cos(theta_c d)
    at::Tensor qPos = positions(Tk - 1 + 300, 1), kPos = positions(300, Tk);  // absolute offset
    at::Tensor lx = attentionLogits(*xpos, q, k, qPos, kPos, Form::Direct).flatten();
    at::Tensor lr = attentionLogits(*rope, q, k, qPos, kPos, Form::Direct).flatten();
    at::Tensor fx = attentionLogits(*xpos, q, k, qPos, kPos, Form::Factorized).flatten();
    long long checked = 0;
    for (long long j = 0; j < Tk; ++j) {
      const double d = static_cast<double>(Tk - 1 - j);
      const double r = lr[j].item<double>();
      if (std::abs(r) < 0.05) continue;
      const double want = std::pow(zeta[c], d / 512.0);
      EXPECT_NEAR(lx[j].item<double>() / r, want, 1e-9 * want) << "pair " << c << " d " << d;
      EXPECT_NEAR(fx[j].item<double>() / r, want, 1e-9 * want) << "factorized, pair " << c;
      ++checked;
    }
    EXPECT_GT(checked, Tk / 2) << "pair " << c;
  }
  // Visible: at d = 1024 pair 0 is down to (2/7)^2 = 0.0816 of RoPE's logit.
  EXPECT_NEAR(std::pow(zeta[0], 2.0), 4.0 / 49.0, 1e-15);
}

}  // namespace
}  // namespace poslab
