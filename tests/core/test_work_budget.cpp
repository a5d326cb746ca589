// Issue 34's remaining work budgets (docs/LIMITS.md): diagnose's two recoveries, the lag table as
// each front end holds it, the explorer views of a lesson step (the one check the window and
// `poslab-cli lesson` share), and the training tab's whole run (steps x batch x length). The
// expected estimates are the formulas docs/LIMITS.md gives, written out here.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>
#include <memory>
#include <string>

#include "analysis/fixed_kernel_recovery.h"
#include "analysis/pj_adaptive.h"
#include "lessons/lesson.h"
#include "limits/view_work.h"
#include "limits/work_budget.h"
#include "tasks/task.h"
#include "train/experiment_plan.h"
#include "train/preset.h"
#include "train/run_limits.h"
#include "util/error.h"

namespace poslab {
namespace {

std::string refusalOf(const WorkCost& cost, double budget = kRequestWorkBudget) {
  try {
    checkWorkFits(cost, "X", budget);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

// The reference script's defaults (8 targets, 2 restarts of 1500 steps at L 1024, T 4096, R 3)
// fit the budget of a command with progress; its largest settings (100,000 steps, 64 restarts, all
// nine targets, L 65536) are over it by orders of magnitude, and the refusal names a factor.
TEST(WorkBudget, AdaptiveRecoveryEstimate) {
  const PjAdaptiveSettings d;
  const WorkCost defaults =
      pjAdaptiveCost(8, d.restarts, d.steps, d.trainLength, d.evalLength, d.maxOrder);
  // Per step: (R + 1) L 40 + 32 L + 3e6; per restart's evaluation: max(L, T) ((R + 1)(4 32 + 8)
  // + 32).
  const double step = 4.0 * 1024 * 40 + 32.0 * 1024 + 3e6;
  const double evaluation = 4096.0 * (4 * (4 * 32 + 8) + 32);
  EXPECT_DOUBLE_EQ(defaults.multiplyAdds, 16 * (1500 * step + evaluation));
  EXPECT_EQ(refusalOf(defaults, kProgressWorkBudget), "");
  const WorkCost largest = pjAdaptiveCost(9, 64, 100000, 65536, 1000000, 8);
  const std::string e = refusalOf(largest, kProgressWorkBudget);
  EXPECT_NE(e.find("over the budget of 2e+12"), std::string::npos) << e;
  EXPECT_NE(e.find("--budget"), std::string::npos) << e;
  // The work grows with each of steps, restarts and targets.
  EXPECT_NEAR(pjAdaptiveCost(8, 4, d.steps, 1024, 4096, 3).multiplyAdds, 2 * defaults.multiplyAdds,
              1e-9 * defaults.multiplyAdds);
}

// The column count behind the fixed recovery's estimate is the bases' own: each basis built at one
// lag, its columns counted.
TEST(WorkBudget, FixedRecoveryEstimateCountsEveryBasisColumn) {
  for (long long R : {1, 3, 8}) {
    double columns = 0, squares = 0;
    for (const auto& name : fixedRecoveryBasisNames(R)) {
      const double m = static_cast<double>(fixedRecoveryBasis(name, 64, 0.1, R, {1.0}).size());
      columns += m;
      squares += (m + 1) * (m + 1);  // the design with its intercept
    }
    // One target, one frequency, L = 1 and one evaluation length of 1: the lags are 2.
    const double expected = 2 * (columns * 2000 + 32) + 6 * 1 * squares;
    EXPECT_DOUBLE_EQ(fixedRecoveryCost(1, 1, 1, {1}, R).multiplyAdds, expected) << "R " << R;
  }
  // The reference's defaults fit; 16 frequencies over 16 lengths of a million lags do not, and
  // the core refuses them before any allocation, naming the budget.
  const FixedRecoverySettings d;
  EXPECT_EQ(refusalOf(fixedRecoveryCost(8, 3, d.trainLength, d.evalLengths, d.maxOrder),
                      kProgressWorkBudget),
            "");
  FixedRecoverySettings big = d;
  big.omegaCycles.assign(16, 5.0);
  big.evalLengths.assign(16, 1000000);
  EXPECT_THROW(checkFixedRecoverySettings(big, 8), InvalidArgument);
  EXPECT_NO_THROW(checkFixedRecoverySettings(big, 0));  // no target: no work
}

// What each front end holds of a lag table: the values (lag, columns, kernel: float64) and, for
// the text table, a short string per cell; for --json a JSON value and its text per cell; for
// --csv nothing (streamed); for the window's plot a point per curve and overlay, no text.
TEST(WorkBudget, LagTableMemoryIsWhatEachFrontEndHolds) {
  const long long lags = 1000, columns = 6;
  const double cells = 1000.0 * 8;
  EXPECT_DOUBLE_EQ(lagTableCost(lags, columns, LagTableOutput::Csv).bytes, cells * 8);
  EXPECT_DOUBLE_EQ(lagTableCost(lags, columns, LagTableOutput::Text).bytes, cells * (8 + 40));
  EXPECT_DOUBLE_EQ(lagTableCost(lags, columns, LagTableOutput::Json).bytes,
                   cells * (8 + 16 + 2 * 24));
  EXPECT_DOUBLE_EQ(lagTableCost(lags, columns, LagTableOutput::Plot).bytes,
                   cells * (8 + 16 + 8) + 1000.0 * 3 * (8 + 16));
  // The window's largest lag count (32768) of a 64-column family is far inside the memory budget
  // once no text is counted.
  EXPECT_LT(lagTableCost(32768, 64, LagTableOutput::Plot).bytes, 0.05 * kRequestMemoryBudget);
}

// A lesson step's view is estimated over a fresh window's state (jordan-exact, the kernel tab,
// 256 lags), with the steps before it; the line names the field and its value, as the window's.
TEST(WorkBudget, LessonStepViewsAreCheckedAsTheWindowChecksThem) {
  ViewWorkRequest fresh;
  ASSERT_TRUE(viewWorkRequestOfState(nlohmann::json::object(), &fresh));
  EXPECT_EQ(fresh.view, "kernel");
  EXPECT_EQ(fresh.family, "jordan-exact");
  EXPECT_EQ(fresh.lagCount, 256);
  EXPECT_EQ(stateViewWorkProblem(fresh), "");

  Lesson lesson;
  lesson.steps.resize(2);
  lesson.steps[0].state = {{"tab", "probe"}};
  lesson.steps[1].state = {{"explorer", {{"family", "rope-pi"}, {"values", {{"L", 200000}}}}}};
  EXPECT_EQ(lessonStateUpTo(lesson, 1)["tab"], "probe");
  ViewWorkRequest r;
  ASSERT_TRUE(viewWorkRequestOfState(lessonStateUpTo(lesson, 1), &r));
  EXPECT_EQ(r.overrides.at("L"), 200000);
  const std::string problem = stateViewWorkProblem(r);
  // The paper's 6 families x 16 channels, fits over 8 L lags of 16 columns (16 + 32) each.
  char estimate[32];
  std::snprintf(estimate, sizeof estimate, "%.2g", 6.0 * 16 * 8 * 200000 * 16 * 48);
  EXPECT_EQ(problem.rfind("field 'explorer.values.L' = 200000: L 200000 with 6 families and 16 "
                          "channels needs about " +
                              std::string(estimate) + " multiply-adds",
                          0),
            0u)
      << problem;
  ASSERT_TRUE(viewWorkRequestOfState(lessonStateUpTo(lesson, 0), &r));
  EXPECT_EQ(stateViewWorkProblem(r), "");  // the probe of jordan-exact's own L

  // The attention view of a wide family: T 1024 of 64 heads of head_dim 1024.
  const nlohmann::json wide = {
      {"tab", "attention"},
      {"explorer",
       {{"family", "rope-ntk-affine"}, {"values", {{"heads", 64}, {"head_dim", 1024}}}}},
      {"views", {{"attention", {{"T", 1024}}}}}};
  ASSERT_TRUE(viewWorkRequestOfState(wide, &r));
  EXPECT_EQ(stateViewWorkProblem(r).rfind("field 'views.attention.T' = 1024: T 1024 (64 heads of "
                                          "head_dim 1024) needs about 6.9e+10",
                                          0),
            0u)
      << stateViewWorkProblem(r);
  // The training tab shows no explorer view; a file family is left to the window.
  nlohmann::json training = wide;
  training["tab"] = "training";
  ASSERT_TRUE(viewWorkRequestOfState(training, &r));
  EXPECT_EQ(stateViewWorkProblem(r), "");
  EXPECT_FALSE(viewWorkRequestOfState({{"explorer", {{"family", "file:/x.pt"}}}}, &r));
}

TrainConfig tinyRun() {
  TrainConfig c;
  c.model.family = "rope";
  c.model.heads = 2;
  c.model.layers = 1;
  c.model.dModel = 16;
  c.task.id = "kernel-lm";
  c.task.trainLength = 16;
  c.optim.batch = 4;
  c.run.steps = 1000;
  c.run.evalLengths = {64};
  c.run.evalEvery = 0;
  c.run.evalSequences = 32;
  c.run.device = "cpu";
  return c;
}

// The whole run: steps x (3 forward passes of the batch + 5e4 a token + 20 per parameter), and
// each evaluation (every evalEvery steps and after the last).
TEST(RunLimits, TrainingWorkCountsStepsBatchLengthAndEvaluations) {
  TrainConfig c = tinyRun();
  TaskConfig t = c.task;
  t.headDim = c.model.headDim();
  const auto task = makeTask(t);
  const double V = static_cast<double>(task->vocabSize());
  const double forward = 4 * 16 * (1 * (16 * 16 + 12 * 16 * 16) + V * 16);  // batch 4 at T 16
  const double step =
      3 * forward + 4 * 16 * 5e4 + 20 * modelParameterCount(c.model, task->vocabSize());
  const double evaluation =
      evaluationCost(c.model, task->vocabSize(), 64, 32, c.run.evalTokensPerBatch).work;
  EXPECT_NEAR(trainingWorkCost(c, *task), 1000 * step + evaluation, 1e-9 * 1000 * step);
  c.run.evalEvery = 100;  // after steps 100, 200, ..., 1000 (the last among them): 10
  EXPECT_NEAR(trainingWorkCost(c, *task), 1000 * step + 10 * evaluation, 1e-9 * 1000 * step);
  c.run.evalEvery = 300;  // after steps 300, 600, 900 and the last, 1000: 4
  EXPECT_NEAR(trainingWorkCost(c, *task), 1000 * step + 4 * evaluation, 1e-9 * 1000 * step);
  EXPECT_NO_THROW(checkTrainingWorkFits(c, *task));
  // A million steps of batch 8 at length 1024: about 9e14, a few days of this CPU.
  c.run.steps = 1000000;
  c.optim.batch = 8;
  c.task.trainLength = 1024;
  try {
    checkTrainingWorkFits(c, *task);
    ADD_FAILURE() << "a run of days was accepted";
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("1000000 steps of batch 8 at length 1024"), std::string::npos) << what;
    EXPECT_NE(what.find("over the budget of 5e+14 on a CPU"), std::string::npos) << what;
    EXPECT_NE(what.find("--budget"), std::string::npos) << what;
  }
  c.run.device = "cuda";  // x250 on a GPU
  EXPECT_NO_THROW(checkTrainingWorkFits(c, *task));
}

// Every run of every shipped preset that this machine's checks accept fits the training budget
// of its device: the window's Play never refuses what the presets ship.
TEST(RunLimits, EveryShippedPresetFitsTheTrainingBudget) {
  for (const std::string& name : presetNames()) {
    const ExperimentSpec spec = loadPreset(name);
    for (const PlannedRun& p : planExperiment(spec)) {
      TaskConfig t = p.config.task;
      t.headDim = p.config.model.headDim();
      std::unique_ptr<Task> task;
      try {
        task = makeTask(t);
      } catch (const InvalidArgument& e) {  // a text file that is fetched separately
        std::cout << name << ": not built here (" << e.what() << ")\n";
        continue;
      }
      TrainConfig cpu = p.config;
      cpu.run.device = "cpu";
      const double work = trainingWorkCost(cpu, *task);
      try {  // a preset meant for a GPU (kv-retrieval-paper) is refused on a CPU for its evaluation
        for (long long L : cpu.run.evalLengths)
          checkEvaluationFits(cpu, task->vocabSize(), L,
                              evaluationPasses(*task, L) * cpu.run.evalSequences);
      } catch (const InvalidArgument&) {
        EXPECT_LE(work, kTrainWorkBudgetCuda) << name << " " << p.family << ": " << work;
        continue;
      }
      EXPECT_LE(work, kTrainWorkBudget) << name << " " << p.family << ": " << work;
    }
  }
}

}  // namespace
}  // namespace poslab
