// Relativity (MATH 0.1 and 1.7): a relative family's logit depends on the lag d = i - j only, so
// shifting every position by s leaves the logits unchanged; the absolute-shear variant and the
// naive (same-transform) Jordan factorization are not relative, the contragredient one is.
// Tolerances: 1e-9 relative to the logit scale (float64 direct), 1e-8 (float64 factorized, whose
// key and query factors grow like e^(+-gamma p) and cancel), 1e-12 for single std::complex blocks.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <complex>
#include <set>

#include "encodings/registry.h"
#include "test_support.h"
#include "util/error.h"

namespace poslab {
namespace {

using testing::allFamilyCases;
using testing::maxAbsDiff;
using testing::positions;
using testing::randomQK;

constexpr long long kShift = 1000;      // s: positions i + s, j + s against i, j
constexpr long long kRelativityT = 24;  // positions 0..23 (lags 0..23)

double finiteScaleInRelativity(const at::Tensor& logits) {
  return at::where(at::isfinite(logits), logits.abs(), at::zeros_like(logits)).max().item<double>();
}

class Relativity : public ::testing::TestWithParam<size_t> {};

// l(i + s, j + s) == l(i, j): the defining property of every family whose isRelative() is true.
TEST_P(Relativity, LogitsInvariantUnderPositionShift) {
  const auto fc = allFamilyCases()[GetParam()];
  auto enc = makeEncoding(fc.id, fc.params);
  if (!enc->isRelative()) GTEST_SKIP() << fc.id << " is not relative (checked separately)";
  const long long D = enc->headDim();
  at::Tensor q = randomQK(1, fc.heads, kRelativityT, D, at::kDouble, 11);
  at::Tensor k = randomQK(1, fc.heads, kRelativityT, D, at::kDouble, 12);
  at::Tensor p0 = positions(0, kRelativityT), p1 = positions(kShift, kRelativityT);

  at::Tensor d0 = attentionLogits(*enc, q, k, p0, p0, Form::Direct);
  at::Tensor d1 = attentionLogits(*enc, q, k, p1, p1, Form::Direct);
  const double scale = finiteScaleInRelativity(d0);
  EXPECT_LT(maxAbsDiff(d0, d1), 1e-9 * (1 + scale)) << fc.id << " direct";

  // The factorized form, where it exists; float64 must hold it at these positions (the decays of
  // allFamilyCases keep e^(gamma p) below e^11 at p = 1024).
  if (enc->hasFactorized()) {
    ASSERT_TRUE(enc->factorizedPrecision(kShift + kRelativityT, /*float32=*/false).ok) << fc.id;
    at::Tensor f0 = attentionLogits(*enc, q, k, p0, p0, Form::Factorized);
    at::Tensor f1 = attentionLogits(*enc, q, k, p1, p1, Form::Factorized);
    EXPECT_LT(maxAbsDiff(f0, f1), 1e-8 * (1 + scale)) << fc.id << " factorized";
    EXPECT_LT(maxAbsDiff(f1, d1), 1e-8 * (1 + scale)) << fc.id << " factorized vs direct at +s";
  }
}

INSTANTIATE_TEST_SUITE_P(AllFamilies, Relativity,
                         ::testing::Range<size_t>(0, allFamilyCases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           std::string name = allFamilyCases()[info.param].id;
                           for (auto& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

// The families with the reference's bounded absolute shear are not relative: tau(i) - tau(j) is
// not a function of i - j (MATH 1.7.6), nor are the jet mix's T_i and T_j (MATH 1.7.9); every
// other family is.
TEST(Relativity, OnlyTheAbsoluteShearFamiliesAreNotRelative) {
  const std::set<std::string> absolute = {"jordan-stabilized-abs",
                                          "real-jordan",
                                          "jordan-no-gamma",
                                          "direct-sum",
                                          "jordan-m3",
                                          "jordan-m4",
                                          "jordan-m3-jetmix",
                                          "jordan-m4-jetmix",
                                          "jordan-m4-jetmix-full",
                                          "jordan-m3-jetmix-alibi",
                                          "jordan-m4-jetmix-full-alibi"};
  for (const auto& fc : allFamilyCases()) {
    auto enc = makeEncoding(fc.id, fc.params);
    EXPECT_EQ(enc->isRelative(), absolute.count(fc.id) == 0) << fc.id;
  }
}

// jordan-stabilized-abs: shifting by s changes the logits by far more than rounding, in both its
// forms. Near p = 1000 >> L = 32, tau(p) ~ L so tau(i) - tau(j) ~ 0 and the shear term vanishes,
// while near 0 it is of order eta * d. Threshold: 5% of the logit scale (observed ~ 20%+).
TEST(Relativity, StabilizedAbsShearIsNotRelative) {
  testing::FamilyCase fc;
  for (const auto& c : allFamilyCases())
    if (c.id == "jordan-stabilized-abs") fc = c;
  ASSERT_EQ(fc.id, "jordan-stabilized-abs");
  auto enc = makeEncoding(fc.id, fc.params);
  EXPECT_FALSE(enc->isRelative());
  at::Tensor q = randomQK(1, fc.heads, kRelativityT, enc->headDim(), at::kDouble, 11);
  at::Tensor k = randomQK(1, fc.heads, kRelativityT, enc->headDim(), at::kDouble, 12);
  at::Tensor p0 = positions(0, kRelativityT), p1 = positions(kShift, kRelativityT);
  for (Form form : {Form::Direct, Form::Factorized}) {
    at::Tensor l0 = attentionLogits(*enc, q, k, p0, p0, form);
    at::Tensor l1 = attentionLogits(*enc, q, k, p1, p1, form);
    EXPECT_GT(maxAbsDiff(l0, l1), 0.05 * finiteScaleInRelativity(l0))
        << (form == Form::Direct ? "direct" : "factorized");
  }
}

// ---- one 4-real Jordan block written in plain std::complex (MATH 1.7.1) ------------------------

using C = std::complex<double>;
using Vec2 = std::array<C, 2>;
struct Mat2 {
  C a, b, c, d;  // [[a, b], [c, d]]
};

constexpr double kGamma = 0.02, kOmega = 0.3, kEta = 0.15;

// G(p) = exp(p J) = e^(lambda p) (I + eta p N), lambda = -gamma + i omega, N = [[0,1],[0,0]].
Mat2 blockG(double p, double gamma = kGamma, double eta = kEta) {
  const C e = std::exp(C(-gamma, kOmega) * p);
  return {e, e * eta * p, C(0), e};
}
Mat2 adjoint(const Mat2& m) {
  return {std::conj(m.a), std::conj(m.c), std::conj(m.b), std::conj(m.d)};
}
Vec2 applyBlock(const Mat2& m, const Vec2& x) {
  return {m.a * x[0] + m.b * x[1], m.c * x[0] + m.d * x[1]};
}
double reInner(const Vec2& x, const Vec2& y) {  // Re(x^H y)
  return (std::conj(x[0]) * y[0] + std::conj(x[1]) * y[1]).real();
}

// Naive: the same G applied to both sides, (G(i) q)^H (G(j) k) = q^H G(i)^H G(j) k.
double naiveScore(const Vec2& q, const Vec2& k, double i, double j, double gamma = kGamma,
                  double eta = kEta) {
  return reInner(applyBlock(blockG(i, gamma, eta), q), applyBlock(blockG(j, gamma, eta), k));
}
// Contragredient: queries G(i)^H q, keys G(-j) k, so the product is q^H G(i) G(-j) k = q^H G(i-j)
// k.
double contragredientScore(const Vec2& q, const Vec2& k, double i, double j) {
  return reInner(applyBlock(adjoint(blockG(i)), q), applyBlock(blockG(-j), k));
}
double relativeScore(const Vec2& q, const Vec2& k, double d) {
  return reInner(q, applyBlock(blockG(d), k));
}

Vec2 randomVec(unsigned seed) {
  at::Tensor t = randomQK(1, 1, 1, 4, at::kDouble, seed).flatten();
  auto a = t.accessor<double, 1>();
  return {C(a[0], a[1]), C(a[2], a[3])};
}

// The naive form is not relative for a non-unitary block (gamma > 0, eta != 0): G(i)^H G(j) is
// not G(j - i). Its score moves by >10% of its size under a shift of 50 (it carries
// e^(-gamma(i+j))).
TEST(Relativity, NaiveJordanFormIsNotRelative) {
  const Vec2 q = randomVec(21), k = randomVec(22);
  double worst = 0;
  for (double i = 0; i < 12; ++i)
    for (double j = 0; j <= i; ++j) {
      const double a = naiveScore(q, k, i, j), b = naiveScore(q, k, i + 50, j + 50);
      worst = std::max(worst, std::abs(a - b) / (std::abs(a) + 1e-3));
    }
  EXPECT_GT(worst, 0.1);
  // Sanity: with gamma = 0, eta = 0 the block is unitary and the naive form is relative, so the
  // failure above is non-unitarity, not a bug in the helper.
  for (double i = 0; i < 12; ++i)
    for (double j = 0; j <= i; ++j)
      EXPECT_NEAR(naiveScore(q, k, i, j, 0, 0), naiveScore(q, k, i + 50, j + 50, 0, 0), 1e-12);
}

// The contragredient query action is relative: it equals Re(q^H G(i - j) k) at every (i, j).
TEST(Relativity, ContragredientJordanFormIsRelative) {
  const Vec2 q = randomVec(21), k = randomVec(22);
  for (double i = 0; i < 12; ++i)
    for (double j = 0; j <= i; ++j) {
      const double ref = relativeScore(q, k, i - j);
      EXPECT_NEAR(contragredientScore(q, k, i, j), ref, 1e-12 * (1 + std::abs(ref)));
      EXPECT_NEAR(contragredientScore(q, k, i + 50, j + 50), ref, 1e-12 * (1 + std::abs(ref)));
    }
}

// The library's jordan-exact factorized form is this contragredient action: its transformed
// q', k' are G(i)^H q and G(-j) k (re, im interleaved), and its logits are the score / sqrt(4).
TEST(Relativity, JordanExactFactorizedIsContragredient) {
  auto enc = makeEncoding(
      "jordan-exact",
      {{"gamma", kGamma}, {"eta", kEta}, {"omega", kOmega}, {"pin_omega", 1}, {"head_dim", 4}});
  constexpr long long T = 12;
  at::Tensor q = randomQK(1, 1, T, 4, at::kDouble, 31);
  at::Tensor k = randomQK(1, 1, T, 4, at::kDouble, 32);
  at::Tensor pos = positions(40, T);
  FactorizedQK f = enc->factorize(q, k, pos, pos);
  at::Tensor logits = attentionLogits(*enc, q, k, pos, pos, Form::Factorized);
  auto qa = q.accessor<double, 4>(), ka = k.accessor<double, 4>();
  auto fq = f.q.accessor<double, 4>(), fk = f.k.accessor<double, 4>();
  auto la = logits.accessor<double, 4>();
  auto vec = [](const at::TensorAccessor<double, 1>& v) {
    return Vec2{C(v[0], v[1]), C(v[2], v[3])};
  };
  for (long long a = 0; a < T; ++a) {
    const double p = static_cast<double>(40 + a);
    const Vec2 wantQ = applyBlock(adjoint(blockG(p)), vec(qa[0][0][a]));
    const Vec2 wantK = applyBlock(blockG(-p), vec(ka[0][0][a]));
    const Vec2 gotQ = vec(fq[0][0][a]), gotK = vec(fk[0][0][a]);
    for (int l = 0; l < 2; ++l) {
      EXPECT_LT(std::abs(gotQ[l] - wantQ[l]), 1e-12 * (1 + std::abs(wantQ[l]))) << "q' at p=" << p;
      EXPECT_LT(std::abs(gotK[l] - wantK[l]), 1e-12 * (1 + std::abs(wantK[l]))) << "k' at p=" << p;
    }
  }
  for (long long a = 0; a < T; ++a)
    for (long long b = 0; b <= a; ++b) {
      const double want =
          contragredientScore(vec(qa[0][0][a]), vec(ka[0][0][b]), 40.0 + a, 40.0 + b) / 2;
      EXPECT_NEAR(la[0][0][a][b], want, 1e-12 * (1 + std::abs(want)));
    }
}

}  // namespace
}  // namespace poslab
