// Runaway runs are refused before any work (issue #17): the shared bounds on steps and train
// length, the evaluation budget (1M-token evaluation took hours), and pins of parameters the
// family does not learn (they used to do nothing, silently).
#include <gtest/gtest.h>

#include <ATen/Context.h>

#include <algorithm>
#include <string>
#include <vector>

#include "model/pin_check.h"
#include "train/run_limits.h"
#include "train/trainer.h"

namespace poslab {
namespace {

TrainConfig tiny() {
  TrainConfig c;
  c.model.family = "rope";
  c.model.heads = 1;
  c.model.layers = 1;
  c.model.dModel = 16;
  c.task.id = "kernel-lm";
  c.task.trainLength = 8;
  c.optim.batch = 2;
  c.run.steps = 1;
  c.run.evalLengths = {8};
  c.run.evalSequences = 2;
  c.run.device = "cpu";
  return c;
}

std::string errorOfRunLimits(const TrainConfig& c) {
  try {
    Trainer t(c);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(RunLimits, TheGuiBoundsAreTheOnesTrainerEnforces) {
  // The training panel's spin boxes allowed these before they moved to core.
  EXPECT_EQ(kMaxTrainSteps, 1000000);
  EXPECT_EQ(kMaxTrainLength, 65536);
  TrainConfig c = tiny();
  c.run.steps = 9223372036854775807LL;
  EXPECT_NE(errorOfRunLimits(c).find(
                "'run.steps' = 9223372036854775807 is out of range (allowed [0, 1000000])"),
            std::string::npos)
      << errorOfRunLimits(c);
  c = tiny();
  c.task.trainLength = 1000000000;
  EXPECT_NE(errorOfRunLimits(c).find("'task.train_length' = 1000000000 is out of range"),
            std::string::npos);
  c = tiny();
  c.run.evalSequences = 0;
  EXPECT_NE(errorOfRunLimits(c).find("'run.eval_sequences' = 0"), std::string::npos);
  c = tiny();
  c.run.evalEvery = -1;
  EXPECT_NE(errorOfRunLimits(c).find("'run.eval_every' = -1"), std::string::npos);
  EXPECT_EQ(errorOfRunLimits(tiny()), "");
}

TEST(RunLimits, EvaluationCostCountsAttentionWork) {
  ModelConfig m;
  m.dModel = 64;
  m.heads = 4;
  m.layers = 2;
  m.mlpRatio = 4;
  // 1 sequence x 32768 tokens, each: per layer its 32768 keys' products (64 multiply-adds) and
  // the projections and the MLP, (4 + 2 x 4) 64^2; the output head (V = 2) 2 x 64; 5e4 for
  // sampling and the loss (docs/performance/long_evaluation_and_direct_form.md's measured case:
  // 15-54 s).
  const double T = 32768;
  const double perToken = 2 * (T * 64 + 12 * 64 * 64) + 2 * 64 + 5e4;
  EXPECT_DOUBLE_EQ(evaluationCost(m, 2, 32768, 1, 16384).work, T * perToken);
  // Scores (B=4, H=4, T=4096, 1024 keys) + logits (V=2) + 8 C activations, float32.
  EXPECT_DOUBLE_EQ(evaluationCost(m, 2, 4096, 64, 16384).bytes,
                   4.0 * 4096 * (4 * 1024 + 2 + 8 * 64) * 4);
}

// Short sequences cost what every token costs besides its attention: a million evaluation
// sequences of a 3,400-parameter model at T = 64 (an hour of CPU) are refused, and so is an
// evaluation whose lengths fit one by one but not together.
TEST(RunLimits, TheWholeEvaluationIsCounted) {
  TrainConfig c = tiny();
  c.run.evalLengths = {64};
  c.run.evalSequences = 1000000;
  std::string e = errorOfRunLimits(c);
  EXPECT_NE(e.find("evaluation at length 64 with 1000000 sequences needs about"), std::string::npos)
      << e;
  EXPECT_NE(e.find("--budget"), std::string::npos) << e;
  // 5e5 sequences at 64 tokens: 3.2e7 tokens of about 5.4e4 each (5e4, the MLP and projections
  // 12 x 16^2, the products 64 x 16), 1.7e12, under 2e12 alone.
  c.run.evalSequences = 500000;
  EXPECT_EQ(errorOfRunLimits(c), "");
  c.run.evalLengths = {64, 64};
  e = errorOfRunLimits(c);
  EXPECT_NE(e.find("evaluation at lengths 64 and 64 with 500000 sequences each needs about"),
            std::string::npos)
      << e;
  Trainer t(tiny());
  EXPECT_THROW(t.evaluate({64, 64, 64}, 500000), InvalidArgument);
}

// The work budget follows the device: 2e12 multiply-adds on a CPU, 5e14 on a CUDA device, so the
// papers' evaluations (kv-retrieval-paper: 1.4e14 at 8192 tokens) run where they are meant to.
TEST(RunLimits, TheEvaluationBudgetFollowsTheDevice) {
  EXPECT_EQ(evaluationWorkBudget("cpu"), 2e12);
  EXPECT_EQ(evaluationWorkBudget("cuda"), 5e14);
  EXPECT_EQ(evaluationWorkBudget("auto"), at::hasCUDA() ? 5e14 : 2e12);
  TrainConfig c = tiny();
  c.model.dModel = 256;
  c.model.layers = 4;
  // 256 sequences x 4096 tokens x (4 layers x (4096 x 256 + 12 x 256^2) + ...): 7.7e12, between
  // the two budgets.
  const long long length = 4096, sequences = 256;
  ASSERT_GT(evaluationCost(c.model, 2, length, sequences, 16384).work, 2e12);
  ASSERT_LT(evaluationCost(c.model, 2, length, sequences, 16384).work, 5e14);
  try {
    checkEvaluationFits(c, 2, length, sequences);
    ADD_FAILURE() << "a CPU evaluation over 2e12 multiply-adds was accepted";
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("over the budget of 2e+12 on a CPU"), std::string::npos) << what;
    EXPECT_NE(what.find("--device cuda"), std::string::npos) << what;
  }
  c.run.device = "cuda";
  EXPECT_NO_THROW(checkEvaluationFits(c, 2, length, sequences));
  // Past the CUDA budget as well (16x the length, 256x the work): refused on any device, naming
  // that budget.
  try {
    checkEvaluationFits(c, 2, 16 * length, sequences);
    ADD_FAILURE() << "a CUDA evaluation over 5e14 multiply-adds was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("over the budget of 5e+14 on a CUDA device"),
              std::string::npos)
        << e.what();
  }
}

TEST(RunLimits, AMillionTokenEvaluationIsRefusedBeforeTraining) {
  TrainConfig c = tiny();
  c.run.evalLengths = {1048576};
  c.run.evalSequences = 64;
  const std::string e = errorOfRunLimits(c);
  EXPECT_NE(e.find("evaluation at length 1048576 with 64 sequences needs about"), std::string::npos)
      << e;
  // The same length on a trained model: refused by evaluate() before any batch.
  Trainer t(tiny());
  EXPECT_THROW(t.evaluate({1048576}, 64), InvalidArgument);
  int batches = 0;
  t.evaluate({8}, 2, [&](size_t index, long long L, long long done, long long total) {
    EXPECT_EQ(index, 0u);
    EXPECT_EQ(L, 8);
    EXPECT_EQ(total, 2);
    EXPECT_EQ(done, 2);  // 2 sequences of 8 tokens are one batch
    ++batches;
  });
  EXPECT_EQ(batches, 1);
}

// Issue 34: an evaluation's progress counts every pass. kv-retrieval runs its sequences again at
// each distance point (64 below T = 128: two passes), so its total at a length is sequences x 2,
// and the last call of each length reaches it; the lengths come with their index.
TEST(RunLimits, EvaluationProgressCountsEveryPass) {
  TrainConfig c = tiny();
  c.task.id = "kv-retrieval";
  c.task.trainLength = 128;
  c.run.evalLengths = {128, 128};
  Trainer t(c);
  ASSERT_EQ(t.evalTask().accuracyDistances(128), std::vector<long long>{64});
  std::vector<size_t> indices;
  std::vector<long long> dones, totals;
  t.evaluate(c.run.evalLengths, 3, [&](size_t index, long long, long long done, long long total) {
    indices.push_back(index);
    dones.push_back(done);
    totals.push_back(total);
  });
  ASSERT_FALSE(dones.empty());
  for (long long total : totals) EXPECT_EQ(total, 6);  // 3 sequences, 2 passes
  EXPECT_EQ(indices.front(), 0u);
  EXPECT_EQ(indices.back(), 1u);
  const auto lastOfFirst = std::find(indices.begin(), indices.end(), 1u) - indices.begin() - 1;
  ASSERT_GE(lastOfFirst, 0);
  EXPECT_EQ(dones[static_cast<size_t>(lastOfFirst)], 6);
  EXPECT_EQ(dones.back(), 6);
  EXPECT_TRUE(std::is_sorted(dones.begin(), dones.begin() + lastOfFirst + 1));
}

// Issue 34: a stop request acts before the next evaluation batch (a SIGTERM during a sweep's
// evaluation took 230 s to act), not when the evaluation ends; the evaluation after it, without a
// stop, gives the numbers of one that was never stopped.
TEST(RunLimits, AStoppedEvaluationEndsBeforeItsNextBatch) {
  TrainConfig c = tiny();
  c.run.evalLengths = {8, 16};
  c.run.evalSequences = 40;
  c.run.evalTokensPerBatch = 80;  // 10 sequences of 8 tokens a batch: 4 batches at length 8
  const std::vector<EvalResult> whole = Trainer(c).evaluate(c.run.evalLengths);
  Trainer t(c);
  int asked = 0, batches = 0;
  t.setEvaluationStop([&] { return ++asked > 2; });  // stop before the third batch
  EXPECT_THROW(
      t.evaluate(c.run.evalLengths, 0, [&](size_t, long long, long long, long long) { ++batches; }),
      EvaluationStopped);
  EXPECT_EQ(asked, 3);
  EXPECT_EQ(batches, 2);
  t.setEvaluationStop({});
  const std::vector<EvalResult> again = t.evaluate(c.run.evalLengths);
  ASSERT_EQ(again.size(), whole.size());
  for (size_t i = 0; i < whole.size(); ++i) {
    EXPECT_EQ(again[i].loss, whole[i].loss) << whole[i].length;
    EXPECT_EQ(again[i].length, whole[i].length);
  }
}

TEST(PinCheck, APinTheFamilyDoesNotLearnIsRefused) {
  TrainConfig c = tiny();
  c.model.pinned = {"gamma"};
  const std::string e = errorOfRunLimits(c);
  EXPECT_NE(e.find("cannot pin 'gamma': family rope does not learn it"), std::string::npos) << e;
  c.model.family = "damped-rope";
  EXPECT_EQ(errorOfRunLimits(c), "");
  c.model.family = "jordan-stabilized";
  c.model.pinned = {"eta", "gamma"};
  EXPECT_EQ(errorOfRunLimits(c), "");
  c.model.pinned = {"delta"};
  EXPECT_NE(errorOfRunLimits(c).find("it learns gamma, eta"), std::string::npos)
      << errorOfRunLimits(c);
  c.model.family = "pope";
  EXPECT_EQ(errorOfRunLimits(c), "");
}

TEST(PinCheck, PjBiasLearnsItsSectorParameters) {
  ModelConfig m = tiny().model;
  m.family = "pj-bias";
  const auto learned = learnedPinnables(m, 8);
  for (const char* p : {"gates", "orders", "coefficients", "kappa", "slope"})
    EXPECT_NE(std::find(learned.begin(), learned.end(), p), learned.end()) << p;
  EXPECT_EQ(std::find(learned.begin(), learned.end(), "gamma"), learned.end());
}

}  // namespace
}  // namespace poslab
