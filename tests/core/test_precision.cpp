// Long-range numerics (MATH 1.7.3) and input validation (STYLE 5: errors say what failed).
// The exact Jordan factorization's key factor grows like e^(gamma j)(1 + eta j): at gamma = 0.01 it
// leaves float32 near p ~ 8,700 (e^(+-87) is float32's range), so the factorized form must refuse
// float32 at 32,768 loudly, while float64 and the direct form (any width) stay correct.
// Tolerances: 1e-3 relative to the logit scale (float32 direct vs float64), 1e-8 (float64 forms),
// 1e-4 relative (float32 single row vs the float64 reference).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "encodings/registry.h"
#include "test_support.h"
#include "util/error.h"

namespace poslab {
namespace {

using testing::maxAbsDiff;
using testing::positions;
using testing::randomQK;
using testing::referenceLogits;

constexpr long long kFar = 32768;
constexpr long long kPrecisionHeadDim = 16;
const std::map<std::string, double> kExactAtGamma001 = {
    {"gamma", 0.01}, {"eta", 0.1}, {"head_dim", kPrecisionHeadDim}};

// The 32-query x 768-key slice at the far end: queries 32737..32768, keys 32001..32768.
at::Tensor farQueryPositions() {
  return positions(kFar - 31, 32);
}
at::Tensor farKeyPositions() {
  return positions(kFar - 767, 768);
}

// Finite exactly where j <= i (the causal entries), -inf elsewhere: no overflow, no NaN.
void expectFiniteOnCausal(const at::Tensor& logits, const at::Tensor& qPos,
                          const at::Tensor& kPos) {
  at::Tensor causal = (kPos.unsqueeze(0) <= qPos.unsqueeze(1)).expand_as(logits);
  EXPECT_TRUE(at::equal(at::isfinite(logits), causal));
  EXPECT_TRUE(logits.masked_select(causal.logical_not()).isneginf().all().item<bool>());
}

double finiteScaleInPrecision(const at::Tensor& logits) {
  return at::where(at::isfinite(logits), logits.abs(), at::zeros_like(logits)).max().item<double>();
}

// Float32 factorized at 32,768 cannot be represented: it must throw, naming the position.
TEST(Precision, Float32FactorizedJordanExactAt32768Throws) {
  auto enc = makeEncoding("jordan-exact", kExactAtGamma001);
  at::Tensor q = randomQK(1, 1, 32, kPrecisionHeadDim, at::kFloat, 1),
             k = randomQK(1, 1, 768, kPrecisionHeadDim, at::kFloat, 2);
  try {
    attentionLogits(*enc, q, k, farQueryPositions(), farKeyPositions(), Form::Factorized);
    FAIL() << "float32 factorized form at 32768 did not throw";
  } catch (const NumericalRangeError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("position"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(kFar)), std::string::npos) << msg;
    EXPECT_NE(msg.find("float32"), std::string::npos) << msg;
  }
}

// factorizedPrecision reports the failure and where it starts: e^(-0.01 p) leaves float32's normal
// range at p = 87.3 / 0.01 ~ 8,734, far below 32,768.
TEST(Precision, Float32FactorizedPrecisionReportsFirstBadPosition) {
  auto enc = makeEncoding("jordan-exact", kExactAtGamma001);
  PrecisionReport r = enc->factorizedPrecision(kFar, /*float32=*/true);
  EXPECT_FALSE(r.ok);
  EXPECT_GT(r.firstBadPosition, 8000);
  EXPECT_LT(r.firstBadPosition, 9000);
  EXPECT_FALSE(r.problem.empty());
  EXPECT_TRUE(enc->factorizedPrecision(kFar, /*float32=*/false).ok);
}

// Float64 holds e^(+-327): the factorized form runs, is finite, and agrees with the direct form.
TEST(Precision, Float64FactorizedJordanExactAt32768IsFiniteAndCorrect) {
  auto enc = makeEncoding("jordan-exact", kExactAtGamma001);
  at::Tensor q = randomQK(1, 1, 32, kPrecisionHeadDim, at::kDouble, 1),
             k = randomQK(1, 1, 768, kPrecisionHeadDim, at::kDouble, 2);
  at::Tensor fact, direct;
  ASSERT_NO_THROW(
      fact = attentionLogits(*enc, q, k, farQueryPositions(), farKeyPositions(), Form::Factorized));
  direct = attentionLogits(*enc, q, k, farQueryPositions(), farKeyPositions(), Form::Direct);
  expectFiniteOnCausal(fact, farQueryPositions(), farKeyPositions());
  EXPECT_LT(maxAbsDiff(fact, direct), 1e-8 * (1 + finiteScaleInPrecision(direct)));
}

// The direct form is safe in float32 at 32,000..32,768: finite, and within 1e-3 of float64
// (relative to the largest logit), which itself matches the float64 reference.
TEST(Precision, Float32DirectJordanExactAt32768MatchesFloat64) {
  auto enc = makeEncoding("jordan-exact", kExactAtGamma001);
  at::Tensor q = randomQK(1, 1, 32, kPrecisionHeadDim, at::kDouble, 3),
             k = randomQK(1, 1, 768, kPrecisionHeadDim, at::kDouble, 4);
  at::Tensor qp = farQueryPositions(), kp = farKeyPositions();
  at::Tensor l32 = attentionLogits(*enc, q.to(at::kFloat), k.to(at::kFloat), qp, kp, Form::Direct);
  at::Tensor l64 = attentionLogits(*enc, q, k, qp, kp, Form::Direct);
  EXPECT_EQ(l32.scalar_type(), at::kFloat);
  expectFiniteOnCausal(l32, qp, kp);
  const double scale = finiteScaleInPrecision(l64);
  EXPECT_LT(maxAbsDiff(l32, l64), 1e-3 * scale);
  EXPECT_LT(maxAbsDiff(l64, referenceLogits(*enc, q, k, qp, kp)), 1e-10 * (1 + scale));
}

// Forwards to a family and records the widest key chunk attentionLogits asks it to score, so a
// test can see that the direct form is streamed (its lag tensors are Tq x chunk, never Tq x Tk).
class ChunkSpy : public Encoding {
 public:
  explicit ChunkSpy(const Encoding& inner)
      : Encoding(inner.info(), inner.params()), inner_(inner) {}
  LagBasis basis(const std::vector<double>& lags) const override { return inner_.basis(lags); }
  bool isRelative() const override { return inner_.isRelative(); }
  bool hasFactorized() const override { return inner_.hasFactorized(); }
  at::Tensor directScores(const at::Tensor& q, const at::Tensor& k, const at::Tensor& qPos,
                          const at::Tensor& kPos) const override {
    widestChunk = std::max<long long>(widestChunk, k.size(2));
    return inner_.directScores(q, k, qPos, kPos);
  }
  at::Tensor bias(long long numHeads, const at::Tensor& qPos, const at::Tensor& kPos,
                  at::ScalarType dtype) const override {
    return inner_.bias(numHeads, qPos, kPos, dtype);
  }
  double scoreScale() const override { return inner_.scoreScale(); }
  double referenceLogit(const double* q, const double* k, long long i, long long j,
                        long long head) const override {
    return inner_.referenceLogit(q, k, i, j, head);
  }
  std::unique_ptr<TrainableForm> trainable(const TrainableContext& ctx) const override {
    return inner_.trainable(ctx);
  }
  mutable long long widestChunk = 0;

 private:
  const Encoding& inner_;
};

// One 32,768-token query row against every key, jordan-stabilized (direct form only), float32:
// streamed over key chunks of 512, so memory is O(chunk), not O(T^2). Spot-checked against the
// reference.
TEST(Precision, SingleRowOf32768KeysDirectJordanStabilized) {
  auto family =
      makeEncoding("jordan-stabilized",
                   {{"gamma", 0.001}, {"eta", 0.3}, {"L", 256}, {"head_dim", kPrecisionHeadDim}});
  ASSERT_FALSE(family->hasFactorized());
  ChunkSpy spy(*family);
  const Encoding* enc = &spy;
  at::Tensor q = randomQK(1, 1, 1, kPrecisionHeadDim, at::kFloat, 5),
             k = randomQK(1, 1, kFar, kPrecisionHeadDim, at::kFloat, 6);
  at::Tensor qp = positions(kFar - 1, 1), kp = positions(0, kFar);
  at::Tensor l = attentionLogits(*enc, q, k, qp, kp, Form::Direct);
  ASSERT_EQ(l.sizes(), (at::IntArrayRef{1, 1, 1, kFar}));
  EXPECT_TRUE(at::isfinite(l).all().item<bool>());
  at::Tensor q64 = q.to(at::kDouble).contiguous(), k64 = k.to(at::kDouble).contiguous();
  const double* qd = q64.data_ptr<double>();
  for (long long j : {0LL, 1LL, 777LL, 16384LL, kFar - 300, kFar - 2, kFar - 1}) {
    const double want =
        enc->referenceLogit(qd, k64.data_ptr<double>() + j * kPrecisionHeadDim, kFar - 1, j, 0);
    EXPECT_NEAR(l[0][0][0][j].item<double>(), want, 1e-4 * (1 + std::abs(want))) << "j = " << j;
  }
  EXPECT_LE(spy.widestChunk, 512);  // attentionLogits' default chunk
}

// ---- bad input: InvalidArgument naming what is wrong -------------------------------------

void expectInvalid(const std::string& family, const std::map<std::string, double>& params,
                   const std::string& mustName) {
  try {
    makeEncoding(family, params);
    ADD_FAILURE() << family << " accepted bad input (expected a message naming " << mustName << ")";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(mustName), std::string::npos) << e.what();
  }
}

TEST(Precision, BadParametersThrowInvalidArgumentNamingThem) {
  expectInvalid("jordan-exact", {{"gamma", std::nan("")}}, "gamma");
  // jordan-exact has no L (tau(d) = d); the context scale is checked on a family that has it.
  expectInvalid("jordan-stabilized", {{"L", 0}}, "L =");
  expectInvalid("jordan-stabilized", {{"L", -1}}, "L =");
  expectInvalid("jordan-exact", {{"L", 64}}, "'L'");              // unknown for this family
  expectInvalid("jordan-exact", {{"head_dim", 10}}, "head_dim");  // blocks of 4 reals
  expectInvalid("jordan-inexact", {}, "jordan-inexact");
  expectInvalid("jordan-exact", {{"gama", 0.1}}, "gama");
}

}  // namespace
}  // namespace poslab
