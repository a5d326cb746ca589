#include "train/experiment.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>

#include "analysis/final_query_attention.h"
#include "tasks/task.h"
#include "train/trainer.h"
#include "train/training_loop.h"
#include "util/error.h"
#include "util/threads.h"

namespace poslab {

namespace {

// Trains one planned run to the end; a diverged run is reported in the result, not thrown.
// progress sees every complete step (with its evaluation on evaluation steps). Once `cancelled`
// is set, the run stops after the step in flight and trainRun returns false, `r` incomplete.
bool trainRun(const PlannedRun& p, RunResult& r,
              const std::function<void(const Snapshot&)>& progress,
              const std::atomic<bool>& cancelled, const std::string& checkpointDir) {
  const TrainConfig& cfg = p.config;
  const auto t0 = std::chrono::steady_clock::now();
  Trainer trainer(cfg);
  double tokens = 0;
  TrainingCallbacks callbacks;
  callbacks.onStep = [&](const Snapshot& snap) {
    if (snap.tokensPerSecond > 0)
      tokens += static_cast<double>(cfg.optim.batch * cfg.task.trainLength);
    return !cancelled;
  };
  callbacks.onSnapshot = [&](const Snapshot& snap) {
    if (cancelled) return false;
    if (progress) progress(snap);
    return true;
  };
  const TrainingResult trained = runTraining(trainer, callbacks);
  if (trained.outcome == TrainingOutcome::Stopped) return false;
  if (trained.outcome == TrainingOutcome::Diverged) {
    r.error = trained.last.message;
    return true;
  }
  // A run with no step left has had no final evaluation.
  r.eval = !trained.last.eval.empty() ? trained.last.eval
                                      : trainer.evaluate(trainer.config().run.evalLengths);
  r.position = trainer.positionParametersMean();
  r.pjLoo = trainer.pjOrderLoo(cfg.task.trainLength);
  setTeacherSpread(trainer, r);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.tokensPerSecond = tokens / std::max(r.seconds, 1e-9);
  if (!checkpointDir.empty()) {
    std::filesystem::create_directories(checkpointDir);
    trainer.saveCheckpoint(checkpointDir + "/" + r.family +
                           (r.variant.empty() ? "" : "-" + r.variant) + "-seed" +
                           std::to_string(r.seed) + ".pt");
  }
  return true;
}

}  // namespace

void setTeacherSpread(const Trainer& trainer, RunResult& r) {
  const long long L = trainer.config().task.trainLength;
  const std::vector<double> teacher = trainer.evalTask().teacherAttention(L);
  if (teacher.empty()) return;
  const DistributionSpread spread = distributionSpread(teacher, /*first=*/1);
  r.teacherEntropy = spread.entropy;
  r.teacherSupport = spread.support;
}

int defaultExperimentJobs(const TrainConfig& base) {
  const bool gpu = base.run.device == "cuda" || (base.run.device == "auto" && at::hasCUDA());
  return gpu ? 1 : std::max(1, intraOpThreads());
}

std::vector<RunResult> runExperiment(const ExperimentSpec& spec, const ExperimentProgress& progress,
                                     const std::string& checkpointDir, int jobs,
                                     const ExperimentRunDone& runDone,
                                     const ExperimentRunFilter& selected) {
  const std::vector<PlannedRun> plan = planExperiment(spec);
  const size_t total = plan.size();
  std::vector<RunResult> results(total);
  if (total == 0) return results;
  std::vector<RunResult> labels(total);  // family, seed and variant, for the progress calls
  for (size_t i = 0; i < total; ++i) {
    labels[i].family = plan[i].family;
    labels[i].seed = plan[i].seed;
    labels[i].variant = plan[i].variant;
  }
  std::vector<size_t> chosen;  // the plan indices to train, in plan order
  for (size_t i = 0; i < total; ++i)
    if (!selected || selected(i)) chosen.push_back(i);
  for (size_t i = 0; i < total; ++i) results[i] = labels[i];
  if (chosen.empty()) return results;
  jobs = std::clamp(jobs, 1, static_cast<int>(chosen.size()));

  std::mutex progressMutex;  // the callbacks are called from one job at a time
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr failure;
  auto work = [&] {
    for (size_t k = next++; k < chosen.size(); k = next++) {
      const size_t i = chosen[k];
      try {
        const bool ended = trainRun(
            plan[i], results[i],
            [&](const Snapshot& snap) {
              if (!progress) return;
              std::lock_guard<std::mutex> lock(progressMutex);
              progress(i, total, labels[i], snap);
            },
            failed, checkpointDir);
        if (!ended) return;  // another job failed
        if (runDone) {
          std::lock_guard<std::mutex> lock(progressMutex);
          runDone(i, total, results[i]);
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(progressMutex);
        if (!failure) failure = std::current_exception();
        failed = true;
        next = chosen.size();  // the other jobs stop at their next step
        return;
      }
    }
  };

  if (jobs == 1) {
    work();
  } else {
    // Split this thread's intra-op threads between the jobs (at least one each).
    const int perJob = std::max(1, at::get_num_threads() / jobs);
    std::vector<std::thread> threads;
    for (int j = 0; j < jobs; ++j) {
      threads.emplace_back([&, perJob] {
        setThisThreadIntraOpThreads(perJob);
        work();
      });
    }
    for (auto& t : threads) t.join();
  }
  if (failure) std::rethrow_exception(failure);
  return results;
}

}  // namespace poslab
