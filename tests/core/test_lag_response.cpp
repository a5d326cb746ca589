// The lag-response probe of a trained bits-then-QUERY model: the batched probe against a
// one-sequence-at-a-time reference (which bit each lag flips), its targets against the task's
// label weights, and the cosine-to-accuracy rule against a Monte Carlo count of agreeing signs.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "tasks/task.h"
#include "train/lag_response.h"
#include "train/trainer.h"
#include "util/error.h"

namespace poslab {
namespace {

TrainConfig kernelLmRun(const std::string& task) {
  TrainConfig c;
  c.model.family = "rope";
  c.model.dModel = 32;
  c.model.heads = 2;
  c.model.layers = 1;
  c.task.id = task;
  c.task.kernel = task == "kernel-lm" ? "mixed_raw" : "phase";
  c.task.trainLength = 16;
  c.optim.batch = 8;
  c.run.steps = 20;
  c.run.evalLengths = {16};
  c.run.evalSequences = 8;
  c.run.device = "cpu";
  return c;
}

// Margin logit(1) - logit(0) at the last position of one sequence (T).
double margin(Trainer& t, const torch::Tensor& tokens) {
  torch::Tensor logits = predictLogits(t.inspected(), tokens.unsqueeze(0));  // (1, T, V)
  const int64_t last = tokens.size(0) - 1;
  return logits[0][last][1].item<double>() - logits[0][last][0].item<double>();
}

// Written from the definition: flip the bit d tokens before the QUERY, one sequence at a time.
double referenceResponse(Trainer& t, const torch::Tensor& tokens, long long d) {
  double sum = 0;
  const int64_t T = tokens.size(1);
  for (int64_t i = 0; i < tokens.size(0); ++i) {
    torch::Tensor seq = tokens[i].clone(), flipped = seq.clone();
    const int64_t at = T - 1 - d;
    flipped[at] = 1 - seq[at].item<int64_t>();
    const double x = 2.0 * static_cast<double>(seq[at].item<int64_t>()) - 1.0;
    sum += (margin(t, seq) - margin(t, flipped)) * x / 2;
  }
  return sum / static_cast<double>(tokens.size(0));
}

TEST(LagResponse, BatchedProbeMatchesOneFlipAtATime) {
  Trainer t(kernelLmRun("kernel-lm"));
  for (int i = 0; i < 20; ++i) t.step();  // trained a little, so the responses are not all ~0
  const int64_t T = 21;
  torch::manual_seed(3);
  torch::Tensor tokens = torch::randint(0, 2, {3, T}, torch::kLong);
  tokens.select(1, T - 1).fill_(2);  // QUERY
  std::vector<long long> lags;
  for (long long d = 1; d < T; ++d) lags.push_back(d);
  const std::vector<double> r = lagResponseOnTokens(t.inspected(), tokens, lags);
  ASSERT_EQ(r.size(), lags.size());
  double largest = 0;
  for (size_t i = 0; i < lags.size(); ++i) {
    const double ref = referenceResponse(t, tokens, lags[i]);
    largest = std::max(largest, std::abs(ref));
    // float32 model, batched vs single forward: agree to 1e-5 logits.
    EXPECT_NEAR(r[i], ref, 1e-5) << "lag " << lags[i];
  }
  EXPECT_GT(largest, 1e-3) << "the check needs responses well above its tolerance";
}

TEST(LagResponse, TargetsAreTheTasksLabelWeightsAtTheProbedLags) {
  for (const char* task : {"kernel-lm", "sector-teacher"}) {
    Trainer t(kernelLmRun(task));
    const LagResponse r = measureLagResponse(t.inspected(), 200, /*samples=*/2, /*maxLags=*/20);
    ASSERT_EQ(r.lags.size(), 20u) << task;
    EXPECT_EQ(r.lags.front(), 1);
    EXPECT_EQ(r.lags.back(), 199);
    const std::vector<double> w = t.evalTask().labelWeights(200);
    for (size_t i = 0; i < r.lags.size(); ++i) {
      if (i > 0) EXPECT_GT(r.lags[i], r.lags[i - 1]);
      EXPECT_EQ(r.target[i], w[static_cast<size_t>(r.lags[i])]) << task;
    }
    EXPECT_EQ(r.trainLength, 16);
    EXPECT_EQ(r.response, measureLagResponse(t.inspected(), 200, 2, 20).response) << "seeded";
  }
}

TEST(LagResponse, RefusesTasksWithoutLabelWeightsAndBadArguments) {
  TrainConfig c = kernelLmRun("kernel-lm");
  Trainer t(c);
  EXPECT_THROW(measureLagResponse(t.inspected(), 1, 2, 10), InvalidArgument);
  EXPECT_THROW(measureLagResponse(t.inspected(), 32, 0, 10), InvalidArgument);
  EXPECT_THROW(measureLagResponse(t.inspected(), 32, 2, 0), InvalidArgument);
  c.task.id = "kv-retrieval";
  c.task.kernel.clear();
  c.task.options = {{"pairs", 4}, {"keys", 16}, {"values", 16}};
  c.task.trainLength = 64;
  c.run.evalLengths = {64};
  Trainer other(c);
  EXPECT_THROW(measureLagResponse(other.inspected(), 64, 2, 10), InvalidArgument);
}

TEST(LagResponse, ReportsEachSequenceAndCanBeCancelled) {
  Trainer t(kernelLmRun("kernel-lm"));
  std::vector<std::pair<long long, long long>> calls;
  const LagResponse r = measureLagResponse(t.inspected(), 40, /*samples=*/3, /*maxLags=*/10,
                                           [&](long long done, long long total) {
                                             calls.emplace_back(done, total);
                                             return true;
                                           });
  EXPECT_EQ(calls, (std::vector<std::pair<long long, long long>>{{1, 3}, {2, 3}, {3, 3}}));
  EXPECT_EQ(r.response, measureLagResponse(t.inspected(), 40, 3, 10).response)
      << "reporting changes nothing";

  int seen = 0;
  EXPECT_THROW(measureLagResponse(t.inspected(), 40, 3, 10,
                                  [&](long long done, long long) {
                                    ++seen;
                                    return done < 2;  // cancel after the second sequence
                                  }),
               LagResponseCancelled);
  EXPECT_EQ(seen, 2);
}

TEST(LagResponse, CosineIsUncentredAndNaNWhenEmpty) {
  LagResponse r;
  r.lags = {1, 2, 3};
  r.response = {1, 0, 0};
  r.target = {1, 1, 0};
  EXPECT_NEAR(lagResponseCosine(r, 1, 3), 1 / std::sqrt(2.0), 1e-15);
  EXPECT_NEAR(lagResponseCosine(r, 1, 1), 1.0, 1e-15);
  EXPECT_TRUE(std::isnan(lagResponseCosine(r, 2, 3)));  // the response is zero there
  EXPECT_TRUE(std::isnan(lagResponseCosine(r, 5, 9)));  // no lags
}

TEST(LagResponse, SummarySplitsAtTheTrainingLength) {
  LagResponse r;
  r.length = 5;
  r.trainLength = 3;
  r.lags = {1, 2, 3, 4};
  r.response = {1, 0, 1, 0};
  r.target = {1, 0, 0, 1};
  const LagResponseSummary s = summarizeLagResponse(r);
  EXPECT_NEAR(s.cosineAll, 0.5, 1e-15);      // <r,t> = 1, |r| = |t| = sqrt 2
  EXPECT_NEAR(s.cosineTrained, 1.0, 1e-15);  // lags 1, 2
  EXPECT_NEAR(s.cosineBeyond, 0.0, 1e-15);   // lags 3, 4
  EXPECT_NEAR(s.impliedAccuracy, 1 - std::acos(0.5) / M_PI, 1e-15);
}

// For random signs x, sign(sum x a) and sign(sum x b) agree with probability 1 - arccos(cos)/pi:
// count it on the kernel-LM's own case (a = cos(omega d), b = (d/L) cos(omega d)).
TEST(LagResponse, SignAgreementRuleMatchesMonteCarlo) {
  const double omega = std::pow(10000.0, -6.0 / 64), L = 64;
  const int n = 511;
  std::vector<double> a(n), b(n);
  double ab = 0, aa = 0, bb = 0;
  for (int i = 0; i < n; ++i) {
    const double d = i + 1;
    a[i] = std::cos(omega * d);
    b[i] = d / L * std::cos(omega * d);
    ab += a[i] * b[i], aa += a[i] * a[i], bb += b[i] * b[i];
  }
  const double predicted = signAgreementFromCosine(ab / std::sqrt(aa * bb));
  std::mt19937_64 rng(7);
  std::bernoulli_distribution coin(0.5);
  const int trials = 20000;
  int agree = 0;
  for (int t = 0; t < trials; ++t) {
    double sa = 0, sb = 0;
    for (int i = 0; i < n; ++i) {
      const double x = coin(rng) ? 1.0 : -1.0;
      sa += x * a[i], sb += x * b[i];
    }
    agree += (sa > 0) == (sb > 0);
  }
  // Binomial standard error at 20,000 trials is 0.003; allow 4 of them.
  EXPECT_NEAR(predicted, static_cast<double>(agree) / trials, 0.012);
  EXPECT_DOUBLE_EQ(signAgreementFromCosine(1.0), 1.0);
  EXPECT_DOUBLE_EQ(signAgreementFromCosine(-1.0), 0.0);
  EXPECT_DOUBLE_EQ(signAgreementFromCosine(0.0), 0.5);
}

}  // namespace
}  // namespace poslab
