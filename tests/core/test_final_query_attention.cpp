// The final-query attention report of the sector-teacher evaluation (the PJ-RoPE reference's
// final_query_attention_stats and teacher_distribution_stats): the statistic on weights with a
// known entropy, the teacher's attention against softmax(4 K) written out here, and the trainer's
// report on models whose final-query attention is known in closed form (content zeroed: uniform
// for NoPE, p_d proportional to 2^(-8(h+1)/H d) for ALiBi).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "analysis/final_query_attention.h"
#include "tasks/task.h"
#include "test_support.h"
#include "train/experiment.h"
#include "train/trainer.h"

namespace poslab {
namespace {

constexpr double kFinalQueryTol = 1e-12;  // float64 sums of a few terms

TEST(FinalQueryAttention, KnownDistributions) {
  // Batch 2, 1 head, T = 4. Row 0: uniform over the three keys and the query itself; row 1: a
  // point mass on key 2 plus weight on the query, which the statistic drops before renormalising.
  at::Tensor w = at::zeros({2, 1, 4, 4}, at::kDouble);
  w[0][0][3] = at::full({4}, 0.25, at::kDouble);
  w[1][0][3] = at::tensor({0.0, 0.0, 0.5, 0.5}, at::kDouble);
  const FinalQueryAttentionSums s = finalQueryAttentionSums(w.to(at::kFloat));
  EXPECT_EQ(s.rows, 2.0);
  EXPECT_NEAR(s.meanEntropy(), (std::log(3.0) + 0.0) / 2, 1e-7);  // float32 weights
  EXPECT_NEAR(s.meanSupport(), (3.0 + 1.0) / 2, 1e-6);

  // A two-point distribution (1/4, 3/4): H = -(1/4 ln 1/4 + 3/4 ln 3/4).
  at::Tensor two = at::zeros({1, 1, 3, 3}, at::kDouble);
  two[0][0][2] = at::tensor({0.1, 0.3, 0.6}, at::kDouble);
  const double h = -(0.25 * std::log(0.25) + 0.75 * std::log(0.75));
  const FinalQueryAttentionSums t = finalQueryAttentionSums(two);
  EXPECT_NEAR(t.meanEntropy(), h, kFinalQueryTol);
  EXPECT_NEAR(t.meanSupport(), std::exp(h), kFinalQueryTol);

  FinalQueryAttentionSums both = s;
  both.add(t);
  EXPECT_EQ(both.rows, 3.0);
  EXPECT_TRUE(std::isnan(FinalQueryAttentionSums{}.meanEntropy()));
  EXPECT_THROW(finalQueryAttentionSums(at::zeros({1, 1, 3, 2})), InvalidArgument);
}

TEST(FinalQueryAttention, DistributionSpreadSkipsTheUnusedIndex) {
  const DistributionSpread s = distributionSpread({9.0, 0.5, 0.5, 0.0}, 1);
  EXPECT_NEAR(s.entropy, std::log(2.0), kFinalQueryTol);
  EXPECT_NEAR(s.support, 2.0, kFinalQueryTol);
}

// softmax(4 K) of recency_weak_jet at L = 96 (omega = 2 pi 17 / 96), from the reference formula.
TEST(FinalQueryAttention, TeacherAttentionIsSoftmaxOfFourK) {
  TaskConfig c;
  c.id = "sector-teacher";
  c.kernel = "recency_weak_jet";
  c.trainLength = 96;
  const auto task = makeTask(c);
  const std::vector<double> p = task->teacherAttention(96);
  ASSERT_EQ(p.size(), 96u);
  const double w = 2 * std::numbers::pi * 17 / 96;
  std::vector<double> expected(96, 0.0);
  double z = 0;
  for (int d = 1; d < 96; ++d) {
    const double x = d / 96.0;
    z += expected[d] = std::exp(4 * (-0.4 * x + 0.15 * x * x * std::cos(w * d)));
  }
  double h = 0;
  for (int d = 1; d < 96; ++d) {
    expected[d] /= z;
    EXPECT_NEAR(p[d], expected[d], 1e-15) << "d = " << d;
    h -= expected[d] * std::log(expected[d]);
  }
  EXPECT_NEAR(distributionSpread(p, 1).entropy, h, kFinalQueryTol);
  // With the signed teacher (teacher = 0) the labels change but the teacher attention does not.
  c.options = {{"teacher", 0}};
  EXPECT_NEAR(makeTask(c)->teacherAttention(96)[40], expected[40], 1e-15);
  c.id = "kernel-lm";
  c.kernel = "mixed_raw";
  c.options.clear();
  EXPECT_TRUE(makeTask(c)->teacherAttention(96).empty());
}

TrainConfig sectorRun(const std::string& family, bool includeSelf) {
  TrainConfig c = testing::tinyKernelLmRun(family, 4, 16, 16, 4, 1);
  c.task.id = "sector-teacher";
  c.task.kernel = "phase";
  c.model.layers = 2;
  c.model.includeSelf = includeSelf;
  c.run.evalSequences = 6;
  return c;
}

// Zeroes the last layer's query, key and value projections: its logits are the position bias
// alone.
void zeroLastLayerContent(Trainer& t) {
  torch::NoGradGuard noGrad;
  t.parameter("block1.attn.qkv.weight").zero_();
  t.parameter("block1.attn.qkv.bias").zero_();
}

TEST(FinalQueryAttention, UniformAttentionHasLogKeysEntropy) {
  for (bool includeSelf : {true, false}) {
    Trainer t(sectorRun("nope", includeSelf));
    zeroLastLayerContent(t);
    const auto r = t.evaluate({16, 40});
    ASSERT_EQ(r.size(), 2u);
    for (const auto& e : r) {
      EXPECT_NEAR(e.finalQueryEntropy, std::log(e.length - 1.0), 1e-5) << e.length;
      EXPECT_NEAR(e.finalQuerySupport, e.length - 1.0, 1e-4 * e.length) << e.length;
    }
  }
}

TEST(FinalQueryAttention, AlibiAttentionFollowsItsSlopes) {
  Trainer t(sectorRun("alibi", true));
  zeroLastLayerContent(t);
  const long long T = 24, H = 4;
  double h = 0, support = 0;
  for (long long head = 0; head < H; ++head) {
    const double m = std::pow(2.0, -8.0 * static_cast<double>(head + 1) / H);
    double z = 0, s = 0;
    for (long long d = 1; d < T; ++d) z += std::exp(-m * d);
    for (long long d = 1; d < T; ++d) {
      const double p = std::exp(-m * d) / z;
      s -= p * std::log(p);
    }
    h += s / H;
    support += std::exp(s) / H;
  }
  const EvalResult e = t.evaluate({T})[0];
  EXPECT_NEAR(e.finalQueryEntropy, h, 1e-5);
  EXPECT_NEAR(e.finalQuerySupport, support, 1e-4);
}

TEST(FinalQueryAttention, OnlySectorTeachersReportIt) {
  Trainer t(testing::tinyKernelLmRun("rope", 2, 8, 12, 4, 1));
  EXPECT_TRUE(std::isnan(t.evaluate({12})[0].finalQueryEntropy));
  RunResult r;
  setTeacherSpread(t, r);
  EXPECT_TRUE(std::isnan(r.teacherEntropy));
  Trainer s(sectorRun("rope", false));
  setTeacherSpread(s, r);
  EXPECT_NEAR(r.teacherEntropy, distributionSpread(s.evalTask().teacherAttention(16), 1).entropy,
              kFinalQueryTol);
  EXPECT_GT(r.teacherEntropy, 0);
  EXPECT_LE(r.teacherEntropy, std::log(15.0) + kFinalQueryTol);
}

}  // namespace
}  // namespace poslab
