// Reductions between families (MATH 1.2, 1.5, 1.7, 1.8): the special cases the papers state,
// checked on the full logits (direct and factorized) with random float64 content.
// Tolerance: 1e-12 relative to the logit scale (the same arithmetic up to reordering).
#include <gtest/gtest.h>

#include <cmath>

#include "encodings/jordan_blocks.h"
#include "encodings/registry.h"
#include "encodings/rope_like.h"
#include "encodings/schedules.h"
#include "test_support.h"

namespace poslab {
namespace {

using testing::maxAbsDiff;
using testing::positions;
using testing::randomQK;

constexpr long long kReductionsT = 48;
constexpr double kReductionsTol = 1e-12;

double finiteScaleInReductions(const at::Tensor& logits) {
  return at::where(at::isfinite(logits), logits.abs(), at::zeros_like(logits)).max().item<double>();
}

// Logits of a and b agree in every form both have, on the same random content and positions.
void expectSameLogits(const Encoding& a, const Encoding& b, long long D, unsigned seed) {
  at::Tensor q = randomQK(2, 2, kReductionsT, D, at::kDouble, seed);
  at::Tensor k = randomQK(2, 2, kReductionsT, D, at::kDouble, seed + 1);
  at::Tensor pos = positions(5, kReductionsT);
  at::Tensor la = attentionLogits(a, q, k, pos, pos, Form::Direct);
  at::Tensor lb = attentionLogits(b, q, k, pos, pos, Form::Direct);
  const double scale = finiteScaleInReductions(la);
  EXPECT_GT(scale, 0.1);  // the comparison is not between two zero tensors
  EXPECT_LT(maxAbsDiff(la, lb), kReductionsTol * (1 + scale))
      << a.id() << " vs " << b.id() << " direct";
  if (a.hasFactorized() && b.hasFactorized()) {
    at::Tensor fa = attentionLogits(a, q, k, pos, pos, Form::Factorized);
    at::Tensor fb = attentionLogits(b, q, k, pos, pos, Form::Factorized);
    EXPECT_LT(maxAbsDiff(fa, fb), kReductionsTol * (1 + scale))
        << a.id() << " vs " << b.id() << " factorized";
  }
}

// MATH 1.8.3: order 0 reduces to RoPE: blocks of one complex dim at omega_b = base^(-2b/D),
// b < D/2, are exactly RoPE's pairs at theta_c = base^(-2c/D).
TEST(Reductions, PjRotaryOrder0IsRope) {
  for (double base : {10000.0, 500.0}) {
    auto pj =
        makeEncoding("pj-rotary", {{"order", 0}, {"gamma", 0}, {"base", base}, {"head_dim", 16}});
    auto rope = makeEncoding("rope", {{"base", base}, {"head_dim", 16}});
    expectSameLogits(*pj, *rope, 16, 1);
  }
}

// MATH 1.8.3: order 1 reduces to Jordan-RoPE: PJ-rotary shears along pos / L, so its eta = e * L is
// Jordan-exact's eta = e (same gamma, head_dim; Jordan-exact has no L). PJ-rotary's schedule
// base^(-b/nb) over nb = D/4 blocks is Jordan-exact's base'^(-2b/D) at base' = base^2.
TEST(Reductions, PjRotaryOrder1IsJordanExactWithEtaTimesL) {
  constexpr double e = 0.05, gamma = 0.004;
  for (double L : {64.0, 256.0}) {
    auto pj = makeEncoding("pj-rotary", {{"order", 1},
                                         {"gamma", gamma},
                                         {"eta", e * L},
                                         {"L", L},
                                         {"base", 1000},
                                         {"head_dim", 16}});
    auto je =
        makeEncoding("jordan-exact",
                     {{"gamma", gamma}, {"eta", e}, {"base", 1000.0 * 1000.0}, {"head_dim", 16}});
    expectSameLogits(*pj, *je, 16, 3);
  }
}

// Jordan-exact at eta = 0 vs damped RoPE (MATH 1.5: the semisimple, eta = 0, member).
// The layouts differ: Jordan-exact has D/4 blocks of two complex dims (q[4b..4b+3]), both dims of
// block b at omega_b = base^(-2b/D); damped RoPE has D/2 pairs (q[2c], q[2c+1]) at
// theta_c = base^(-2c/D). So with default schedules the correct statement is: at eta = 0 block b
// splits into the two pairs 2b, 2b+1, each rotating at omega_b = theta_b (not theta_2b,
// theta_2b+1). Hence (1) with a pinned common omega the two families are identical; (2) with
// default schedules Jordan-exact(eta=0) equals damped RoPE with the frequency list theta_0,
// theta_0, theta_1, theta_1, ..., theta_(D/4-1) twice (built by hand as an order-1 JordanLayout),
// and differs from damped RoPE's own schedule; (3) the kernel views (one block at the user's gamma,
// omega) agree.
TEST(Reductions, JordanExactEta0IsDampedRopeWithPinnedOmega) {
  constexpr double gamma = 0.01, omega = 0.37;
  auto je = makeEncoding("jordan-exact",
                         {{"gamma", gamma}, {"eta", 0}, {"pin_omega", 1}, {"omega", omega}});
  auto dr = makeEncoding("damped-rope", {{"gamma", gamma}, {"pin_omega", 1}, {"omega", omega}});
  expectSameLogits(*je, *dr, 16, 5);
}

// Damped RoPE is built as the reference builds it (order-2 blocks, eta = 0, omega_b =
// base^(-2b/D), b < D/4), so with the default schedule it is Jordan-exact at eta = 0 exactly.
TEST(Reductions, JordanExactEta0IsDampedRopeWithTheDefaultSchedule) {
  constexpr double gamma = 0.01;
  auto je = makeEncoding("jordan-exact", {{"gamma", gamma}, {"eta", 0}, {"head_dim", 16}});
  auto dr = makeEncoding("damped-rope", {{"gamma", gamma}, {"head_dim", 16}});
  expectSameLogits(*je, *dr, 16, 5);
}

TEST(Reductions, JordanExactEta0KernelViewIsDampedRope) {
  constexpr double gamma = 0.02, omega = 0.5;
  auto je = makeEncoding("jordan-exact", {{"gamma", gamma}, {"eta", 0}, {"omega", omega}});
  auto dr = makeEncoding("damped-rope", {{"gamma", gamma}, {"omega", omega}});
  const std::vector<double> lags = lagRange(0, 200);
  LagBasis bj = je->basis(lags), bd = dr->basis(lags);
  ASSERT_EQ(bd.names.at(1), "exp*cos");
  ASSERT_EQ(bj.names.at(0), "exp*cos");
  for (size_t n = 0; n < lags.size(); ++n) {
    EXPECT_NEAR(bj.columns[0][n], bd.columns[1][n], 1e-15);  // e^(-gamma d) cos(omega d)
    EXPECT_NEAR(bj.columns[1][n], bd.columns[2][n], 1e-15);  // e^(-gamma d) sin(omega d)
    EXPECT_NEAR(bj.kernel[n], bd.kernel[n], 1e-15);          // eta = 0: no d*exp*cos term
  }
}

// MATH 1.5 at gamma = 0: damped RoPE is RoPE on the fast half of the spectrum, each frequency
// twice: pairs at theta_0, theta_0, theta_1, theta_1, ..., theta_(D/4-1) (theta_c = base^(-2c/D)),
// built here by hand as an order-1 layout; and not RoPE's own schedule.
TEST(Reductions, DampedRopeGamma0IsRopeOnTheFastHalfTwice) {
  constexpr long long D = 32;
  constexpr double base = 5000;
  auto dr = makeEncoding("damped-rope", {{"gamma", 0}, {"head_dim", D}, {"base", base}});
  auto rope = makeEncoding("rope", {{"head_dim", D}, {"base", base}});
  std::vector<double> dup;
  for (long long b = 0; b < D / 4; ++b) {
    const double theta = std::pow(base, -2.0 * static_cast<double>(b) / D);
    dup.push_back(theta);
    dup.push_back(theta);
  }
  JordanLayout layout;
  layout.dim = D;
  layout.groups.push_back(makeJordanGroup(0, /*order=*/1, std::vector<double>(D / 2, 0.0), dup,
                                          std::vector<double>(D / 2, 0.0), ShearKind::Linear, 1.0));
  at::Tensor q = randomQK(1, 2, kReductionsT, D, at::kDouble, 7);
  at::Tensor k = randomQK(1, 2, kReductionsT, D, at::kDouble, 8);
  at::Tensor pos = positions(0, kReductionsT);
  at::Tensor drS = dr->directScores(q, k, pos, pos);
  at::Tensor dupS = jordanDirectScores(layout, q, k, pos, pos);
  at::Tensor ropeS = rope->directScores(q, k, pos, pos);
  const double scale = drS.abs().max().item<double>();
  EXPECT_LT(maxAbsDiff(drS, dupS), kReductionsTol * (1 + scale));
  EXPECT_GT(maxAbsDiff(drS, ropeS), 1e-2 * scale);
}

// rope_like.h: the RoPE paper's counter-clockwise rotation (q by i theta_c, k by j theta_c) gives
// Re(conj(q_c) k_c e^(-i theta_c d)), which is our convention with theta -> -theta: the two are
// the same family. Written here from the paper, compared with the shared engine at omega = -theta.
TEST(Reductions, LiteralCounterClockwiseRopeIsOurRopeWithNegatedFrequencies) {
  constexpr long long D = 16, T = 32;
  const std::vector<double> theta = ropeFrequencies(D, 10000);
  std::vector<double> negTheta;
  for (double t : theta) negTheta.push_back(-t);
  JordanLayout mirrored;
  mirrored.dim = D;
  mirrored.groups.push_back(makeJordanGroup(0, 1, std::vector<double>(D / 2, 0.0), negTheta,
                                            std::vector<double>(D / 2, 0.0), ShearKind::Linear,
                                            1.0));
  at::Tensor q = randomQK(1, 1, T, D, at::kDouble, 13);
  at::Tensor k = randomQK(1, 1, T, D, at::kDouble, 14);
  at::Tensor pos = positions(3, T);

  // Literal RoPE: x' = R(p theta_c) x per pair, R(a) = [[cos a, -sin a], [sin a, cos a]].
  auto rotate = [&](const at::Tensor& x) {
    at::Tensor out = x.clone();
    auto xa = x.accessor<double, 4>();
    auto oa = out.accessor<double, 4>();
    for (long long t = 0; t < T; ++t) {
      const double p = static_cast<double>(3 + t);
      for (long long c = 0; c < D / 2; ++c) {
        const double a = p * theta[c], x0 = xa[0][0][t][2 * c], x1 = xa[0][0][t][2 * c + 1];
        oa[0][0][t][2 * c] = x0 * std::cos(a) - x1 * std::sin(a);
        oa[0][0][t][2 * c + 1] = x0 * std::sin(a) + x1 * std::cos(a);
      }
    }
    return out;
  };
  at::Tensor qr = rotate(q), kr = rotate(k);
  at::Tensor literal = at::matmul(qr, kr.transpose(-1, -2)) / std::sqrt(static_cast<double>(D));
  at::Tensor causal = (pos.unsqueeze(1) >= pos.unsqueeze(0));  // j <= i
  literal = at::where(causal, literal, at::zeros_like(literal));

  at::Tensor engine =
      jordanDirectScores(mirrored, q, k, pos, pos) / std::sqrt(static_cast<double>(D));
  const double scale = literal.abs().max().item<double>();
  EXPECT_LT(maxAbsDiff(literal, engine), kReductionsTol * (1 + scale));

  // The mirrored layout's factorized form is literally the paper's rotation of q and k.
  FactorizedQK f = jordanFactorize(mirrored, q, k, pos, pos);
  EXPECT_LT(maxAbsDiff(f.q, qr), 1e-13);
  EXPECT_LT(maxAbsDiff(f.k, kr), 1e-13);

  // And it is the mirror image, not the same numbers, as our RoPE at +theta.
  auto rope = makeEncoding("rope", {{"head_dim", D}});
  at::Tensor ours = attentionLogits(*rope, q, k, pos, pos, Form::Direct);
  ours = at::where(causal, ours, at::zeros_like(ours));
  EXPECT_GT(maxAbsDiff(ours, literal), 1e-2 * scale);
}

}  // namespace
}  // namespace poslab
