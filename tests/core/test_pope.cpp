// PoPE (MATH 1.9): the score's phase comes from position alone, RoPE's from position and content
// (the what-where entanglement PoPE removes). For one frequency component the score over lags
// d = 0..N is A cos(theta d) + B sin(theta d); we fit A, B by least squares and compare the phase
// atan2(B, A) across random contents. Float64. Tolerances: 1e-9 rad for PoPE's phase (the fit is
// exact up to rounding), a spread > 0.5 rad required of RoPE's.
#include <gtest/gtest.h>

#include <cmath>

#include "encodings/registry.h"
#include "test_support.h"

namespace poslab {
namespace {

using testing::positions;
using testing::randomQK;

constexpr long long kPopeHeadDim = 8;
constexpr long long kLags = 200;  // d = 0..199: several periods of the chosen frequencies

// Wraps an angle difference to (-pi, pi].
double wrap(double a) {
  return std::remainder(a, 2 * M_PI);
}

// Least-squares fit s(d) ~ A cos(theta d) + B sin(theta d); returns {phase atan2(B, A), residual}.
std::pair<double, double> fitPhase(const std::vector<double>& s, double theta) {
  double cc = 0, cs = 0, ss = 0, yc = 0, ys = 0;
  for (size_t d = 0; d < s.size(); ++d) {
    const double c = std::cos(theta * d), sn = std::sin(theta * d);
    cc += c * c;
    cs += c * sn;
    ss += sn * sn;
    yc += s[d] * c;
    ys += s[d] * sn;
  }
  const double det = cc * ss - cs * cs;
  const double A = (yc * ss - ys * cs) / det, B = (ys * cc - yc * cs) / det;
  double resid = 0;
  for (size_t d = 0; d < s.size(); ++d)
    resid = std::max(resid, std::abs(s[d] - A * std::cos(theta * d) - B * std::sin(theta * d)));
  return {std::atan2(B, A), resid / std::hypot(A, B)};
}

// s(d), d = 0..kLags-1, from one query at position kLags-1 against keys 0..kLags-1 (direct form).
std::vector<double> scoresOverLags(const Encoding& enc, const at::Tensor& q, const at::Tensor& k) {
  at::Tensor qPos = positions(kLags - 1, 1), kPos = positions(0, kLags);
  at::Tensor l = attentionLogits(enc, q, k, qPos, kPos, Form::Direct).flatten();  // (kLags)
  auto a = l.accessor<double, 1>();
  std::vector<double> s(kLags);
  for (long long j = 0; j < kLags; ++j) s[kLags - 1 - j] = a[j];  // d = (kLags - 1) - j
  return s;
}

// PoPE component c alone: every other component gets content -60, so softplus(-60) ~ 1e-26
// silences it; the query is one row, the keys one random content repeated at every position.
TEST(Pope, ScorePhaseIsContentIndependentAndEqualsDelta) {
  constexpr double delta = -0.7;
  constexpr long long c = 1;
  auto enc = makeEncoding("pope", {{"delta", delta}, {"head_dim", kPopeHeadDim}});
  const double theta = std::pow(10000.0, -static_cast<double>(c) / kPopeHeadDim);  // MATH 1.9
  for (unsigned seed = 0; seed < 6; ++seed) {
    at::Tensor q = at::full({1, 1, 1, kPopeHeadDim}, -60.0, at::kDouble);
    at::Tensor k = at::full({1, 1, kLags, kPopeHeadDim}, -60.0, at::kDouble);
    at::Tensor content = randomQK(1, 1, 1, 2, at::kDouble, 100 + seed).flatten();
    q[0][0][0][c] = 2 * content[0];
    k.select(-1, c).fill_(2 * content[1].item<double>());
    auto [phase, resid] = fitPhase(scoresOverLags(*enc, q, k), theta);
    EXPECT_LT(resid, 1e-9) << "PoPE component is not a pure sinusoid, seed " << seed;
    // cos(theta d - delta) = cos(delta) cos(theta d) + sin(delta) sin(theta d): phase = delta.
    EXPECT_NEAR(wrap(phase - delta), 0.0, 1e-9) << "seed " << seed;
  }
}

// RoPE pair c alone (other pairs zero): s(d) = Re(conj(q_c) k_c e^(i theta d)), whose phase
// -arg(conj(q_c) k_c) = arg q_c - arg k_c moves with the content.
TEST(Pope, RopeScorePhaseDependsOnContent) {
  constexpr long long c = 1;
  auto enc = makeEncoding("rope", {{"head_dim", kPopeHeadDim}});
  const double theta = std::pow(10000.0, -2.0 * c / kPopeHeadDim);  // MATH 1.2
  std::vector<double> phases;
  for (unsigned seed = 0; seed < 6; ++seed) {
    at::Tensor q = at::zeros({1, 1, 1, kPopeHeadDim}, at::kDouble);
    at::Tensor k = at::zeros({1, 1, kLags, kPopeHeadDim}, at::kDouble);
    auto content = randomQK(1, 1, 1, 4, at::kDouble, 200 + seed).flatten();
    auto v = content.accessor<double, 1>();
    q[0][0][0][2 * c] = v[0];
    q[0][0][0][2 * c + 1] = v[1];
    k.select(-1, 2 * c).fill_(v[2]);
    k.select(-1, 2 * c + 1).fill_(v[3]);
    auto [phase, resid] = fitPhase(scoresOverLags(*enc, q, k), theta);
    EXPECT_LT(resid, 1e-9);
    const double expected = std::atan2(v[1], v[0]) - std::atan2(v[3], v[2]);  // arg q - arg k
    EXPECT_NEAR(wrap(phase - expected), 0.0, 1e-9) << "seed " << seed;
    phases.push_back(phase);
  }
  double spread = 0;
  for (double a : phases)
    for (double b : phases) spread = std::max(spread, std::abs(wrap(a - b)));
  EXPECT_GT(spread, 0.5) << "RoPE's phase should move with the content";
}

// MATH 1.9: the factorized form is 2D reals wide on each side (mu cos, mu sin), and its plain dot
// product is the score.
TEST(Pope, FactorizedWidthIs2D) {
  auto enc = makeEncoding("pope", {{"delta", -0.3}, {"head_dim", kPopeHeadDim}});
  at::Tensor q = randomQK(1, 2, 10, kPopeHeadDim, at::kDouble, 1),
             k = randomQK(1, 2, 10, kPopeHeadDim, at::kDouble, 2);
  at::Tensor pos = positions(0, 10);
  FactorizedQK f = enc->factorize(q, k, pos, pos);
  EXPECT_EQ(f.q.size(-1), 2 * kPopeHeadDim);
  EXPECT_EQ(f.k.size(-1), 2 * kPopeHeadDim);
  EXPECT_EQ(f.q.size(2), 10);
  EXPECT_EQ(f.k.size(2), 10);
}

}  // namespace
}  // namespace poslab
