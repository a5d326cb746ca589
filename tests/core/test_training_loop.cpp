// The one training loop (core/train/training_loop.h) and RunConfig::evalEvery's one meaning:
// which steps evaluate, the final evaluation, stopping, divergence, a resumed run's schedule, and
// the three drivers (the loop itself, the GUI's TrainingWorker, the experiment runner) evaluating
// on the same steps with the same numbers. The expected step lists are written out by hand from
// the documented rule ("every evalEvery steps, counted from the run's start, and after the last
// step"), not computed with the code under test.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "test_support.h"
#include "train/experiment.h"
#include "train/trainer.h"
#include "train/training_loop.h"
#include "train/training_worker.h"

namespace poslab {
namespace {

TrainConfig tinyLoopRun(long long steps, long long evalEvery) {
  TrainConfig c =
      poslab::testing::tinyKernelLmRun("rope", /*heads=*/2, /*dModel=*/32, /*trainLength=*/16,
                                       /*batch=*/4, steps);
  c.run.seed = 5;
  c.run.evalEvery = evalEvery;
  c.run.evalLengths = {16, 24};
  c.run.evalSequences = 4;
  return c;
}

std::vector<long long> scheduledSteps(long long steps, long long evalEvery) {
  RunConfig run;
  run.steps = steps;
  run.evalEvery = evalEvery;
  std::vector<long long> out;
  for (long long s = 1; s <= steps; ++s)
    if (isEvaluationStep(run, s)) out.push_back(s);
  return out;
}

using Steps = std::vector<long long>;

TEST(TrainingLoop, EvaluationScheduleIsEveryNStepsAndTheLast) {
  EXPECT_EQ(scheduledSteps(10, 4), (Steps{4, 8, 10}));  // the example of train_config.h
  EXPECT_EQ(scheduledSteps(10, 3), (Steps{3, 6, 9, 10}));
  EXPECT_EQ(scheduledSteps(10, 5), (Steps{5, 10}));  // the last step is not evaluated twice
  EXPECT_EQ(scheduledSteps(10, 0), (Steps{10}));     // 0: only after the last step
  EXPECT_EQ(scheduledSteps(10, 10), (Steps{10}));
  EXPECT_EQ(scheduledSteps(10, 25), (Steps{10}));  // longer than the run: the last only
  EXPECT_EQ(scheduledSteps(4, 1), (Steps{1, 2, 3, 4}));
  RunConfig run;
  run.steps = 10;
  run.evalEvery = 4;
  EXPECT_FALSE(isFinalStep(run, 9));
  EXPECT_TRUE(isFinalStep(run, 10));
}

// What one run through runTraining showed its callbacks.
struct Seen {
  Steps onStep, evaluated, withEval, finished;
  std::vector<EvalResult> lastEval;
  bool evalBeforeItsTime = false;  // onStep saw a snapshot that already had an evaluation
};

TrainingCallbacks recording(Seen& seen, bool customEvaluate) {
  TrainingCallbacks c;
  c.onStep = [&seen](const Snapshot& snap) {
    seen.onStep.push_back(snap.step);
    if (!snap.eval.empty()) seen.evalBeforeItsTime = true;
    return true;
  };
  if (customEvaluate) {
    c.evaluate = [&seen](Trainer& t, Snapshot& snap) {
      seen.evaluated.push_back(snap.step);
      snap.eval = t.evaluate(t.config().run.evalLengths);
    };
  }
  c.onSnapshot = [&seen](const Snapshot& snap) {
    if (!snap.eval.empty()) {
      seen.withEval.push_back(snap.step);
      seen.lastEval = snap.eval;
    }
    if (snap.event == SnapshotEvent::Finished) seen.finished.push_back(snap.step);
    return true;
  };
  return c;
}

TEST(TrainingLoop, EvaluatesOnScheduleAndAfterTheLastStep) {
  Trainer trainer(tinyLoopRun(7, 3));
  Seen seen;
  const TrainingResult r = runTraining(trainer, recording(seen, /*customEvaluate=*/true));
  EXPECT_EQ(r.outcome, TrainingOutcome::Finished);
  EXPECT_EQ(trainer.stepCount(), 7);
  EXPECT_EQ(seen.onStep, (Steps{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_FALSE(seen.evalBeforeItsTime);
  EXPECT_EQ(seen.evaluated, (Steps{3, 6, 7}));
  EXPECT_EQ(seen.withEval, (Steps{3, 6, 7}));
  EXPECT_EQ(seen.finished, (Steps{7}));
  EXPECT_EQ(r.last.step, 7);
  EXPECT_EQ(r.last.event, SnapshotEvent::Finished);
  EXPECT_EQ(r.last.message, "finished");
  ASSERT_EQ(r.last.eval.size(), 2u);  // the final evaluation, at every evaluation length
  EXPECT_EQ(r.last.eval[0].length, 16);
  EXPECT_EQ(r.last.eval[1].length, 24);
  // The final evaluation is an ordinary one of the trained model.
  const auto again = trainer.evaluate({16, 24});
  EXPECT_EQ(again[0].loss, r.last.eval[0].loss);
  EXPECT_EQ(again[1].loss, r.last.eval[1].loss);
  // A finished trainer has nothing left: no step, no evaluation.
  Seen none;
  const TrainingResult idle = runTraining(trainer, recording(none, true));
  EXPECT_EQ(idle.outcome, TrainingOutcome::Finished);
  EXPECT_TRUE(none.onStep.empty());
  EXPECT_TRUE(idle.last.eval.empty());
  EXPECT_EQ(idle.last.step, 7);
}

TEST(TrainingLoop, ACallbackReturningFalseStopsIt) {
  {
    Trainer trainer(tinyLoopRun(7, 3));
    Seen seen;
    TrainingCallbacks c = recording(seen, true);
    c.onStep = [&](const Snapshot& snap) { return snap.step < 3; };  // stop at step 3, unevaluated
    const TrainingResult r = runTraining(trainer, c);
    EXPECT_EQ(r.outcome, TrainingOutcome::Stopped);
    EXPECT_EQ(trainer.stepCount(), 3);
    EXPECT_TRUE(seen.evaluated.empty());
    EXPECT_EQ(seen.withEval, Steps{});
  }
  {
    Trainer trainer(tinyLoopRun(7, 3));
    Seen seen;
    TrainingCallbacks c = recording(seen, true);
    auto record = c.onSnapshot;
    c.onSnapshot = [&](const Snapshot& snap) { return record(snap) && snap.step < 3; };
    const TrainingResult r = runTraining(trainer, c);
    EXPECT_EQ(r.outcome, TrainingOutcome::Stopped);
    EXPECT_EQ(trainer.stepCount(), 3);
    EXPECT_EQ(seen.withEval, (Steps{3}));  // stopped after step 3's evaluation
  }
}

TEST(TrainingLoop, DivergenceEndsTheRunWithADivergedSnapshot) {
  Trainer trainer(tinyLoopRun(7, 3));
  Seen seen;
  TrainingCallbacks c = recording(seen, true);
  c.onStep = [&](const Snapshot& snap) {
    seen.onStep.push_back(snap.step);
    if (snap.step == 2) {
      torch::NoGradGuard ng;
      trainer.parameter("head.weight")[0][0] = std::nan("");
    }
    return true;
  };
  const TrainingResult r = runTraining(trainer, c);
  EXPECT_EQ(r.outcome, TrainingOutcome::Diverged);
  EXPECT_EQ(r.last.event, SnapshotEvent::Diverged);
  EXPECT_EQ(r.last.step, 2);  // the failed third step changed nothing
  EXPECT_NE(r.last.message.find("diverged at step 2"), std::string::npos) << r.last.message;
  EXPECT_EQ(seen.onStep, (Steps{1, 2}));
  EXPECT_TRUE(seen.evaluated.empty());
}

// Steps count from the start of the run, so a run resumed from a checkpoint at step 4 evaluates
// after steps 6 and 7, as the uninterrupted run does, with the same numbers.
TEST(TrainingLoop, AResumedRunKeepsTheSchedule) {
  Trainer whole(tinyLoopRun(7, 3));
  Seen wholeSeen;
  runTraining(whole, recording(wholeSeen, false));

  const auto path = (std::filesystem::temp_directory_path() / "poslab_loop_resume.pt").string();
  Trainer first(tinyLoopRun(7, 3));
  TrainingCallbacks stopAt4;
  stopAt4.onSnapshot = [](const Snapshot& snap) { return snap.step < 4; };
  EXPECT_EQ(runTraining(first, stopAt4).outcome, TrainingOutcome::Stopped);
  first.saveCheckpoint(path);
  auto resumed = Trainer::fromCheckpoint(path);
  std::filesystem::remove(path);
  Seen seen;
  const TrainingResult r = runTraining(*resumed, recording(seen, false));
  EXPECT_EQ(r.outcome, TrainingOutcome::Finished);
  EXPECT_EQ(seen.onStep, (Steps{5, 6, 7}));
  EXPECT_EQ(seen.withEval, (Steps{6, 7}));
  ASSERT_EQ(seen.lastEval.size(), wholeSeen.lastEval.size());
  for (size_t i = 0; i < seen.lastEval.size(); ++i)
    EXPECT_EQ(seen.lastEval[i].loss, wholeSeen.lastEval[i].loss) << "length index " << i;
}

// The GUI's worker and the experiment runner (`run`, `compare`) drive the same loop: the same
// evaluation steps and the same final numbers as runTraining.
TEST(TrainingLoop, WorkerAndExperimentEvaluateOnTheSameSteps) {
  const TrainConfig cfg = tinyLoopRun(7, 3);
  Trainer direct(cfg);
  Seen seen;
  runTraining(direct, recording(seen, false));

  std::mutex m;
  std::vector<Snapshot> workerSnaps;
  {
    TrainingWorker worker(cfg, [&](const Snapshot& s) {
      std::lock_guard<std::mutex> lock(m);
      workerSnaps.push_back(s);
    });
    worker.play();
    for (int i = 0; i < 4000; ++i) {
      {
        std::lock_guard<std::mutex> lock(m);
        if (!workerSnaps.empty() && workerSnaps.back().event == SnapshotEvent::Finished) break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  Steps workerEvals;
  for (const auto& s : workerSnaps)
    if (!s.eval.empty()) workerEvals.push_back(s.step);
  EXPECT_EQ(workerEvals, (Steps{3, 6, 7}));
  ASSERT_FALSE(workerSnaps.empty());
  ASSERT_EQ(workerSnaps.back().eval.size(), seen.lastEval.size());
  EXPECT_EQ(workerSnaps.back().eval[1].loss, seen.lastEval[1].loss);

  ExperimentSpec spec;
  spec.name = "loop";
  spec.families = {"rope"};
  spec.seeds = {cfg.run.seed};
  spec.base = cfg;
  Steps experimentEvals;
  const auto results = runExperiment(
      spec,
      [&](size_t, size_t, const RunResult&, const Snapshot& snap) {
        if (!snap.eval.empty()) experimentEvals.push_back(snap.step);
      },
      {}, 1);
  EXPECT_EQ(experimentEvals, (Steps{3, 6, 7}));
  ASSERT_EQ(results.size(), 1u);
  ASSERT_EQ(results[0].eval.size(), seen.lastEval.size());
  EXPECT_EQ(results[0].eval[0].loss, seen.lastEval[0].loss);
  EXPECT_EQ(results[0].eval[1].loss, seen.lastEval[1].loss);
}

}  // namespace
}  // namespace poslab
