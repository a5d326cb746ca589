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
#include "encodings/torchscript_family.h"
#include "tasks/task.h"
#include "train/run_checkpoint.h"
#include "train/trainer.h"
#include "train/training_loop.h"
#include "util/error.h"
#include "util/threads.h"

namespace poslab {

namespace {

// How trainRun ended.
enum class RunEnd {
  Ended,      // trained and evaluated, or diverged (r.error): r is the result
  Cancelled,  // another job failed: r is incomplete
  Stopped,    // RunCheckpointing::stop: saved at `savedStep`, r incomplete
};

// Trains one planned run to the end; a diverged run is reported in the result, not thrown.
// progress sees every complete step (with its evaluation on evaluation steps), evalProgress
// every batch of those evaluations. Once `cancelled` is set, the run stops after the step in
// flight (within an evaluation batch when it is evaluating), `r` incomplete. With a checkpoint
// path the run continues from the checkpoint there, writes it every checkpointing.everySteps
// steps and when checkpointing.stop is set.
RunEnd trainRun(const PlannedRun& p, RunResult& r,
                const std::function<void(const Snapshot&)>& progress,
                const std::function<void(const EvaluationProgress&)>& evalProgress,
                const std::atomic<bool>& cancelled, const std::string& checkpointDir,
                const std::string& runCheckpoint, const RunCheckpointing& checkpointing,
                long long& savedStep) {
  const TrainConfig& cfg = p.config;
  const auto t0 = std::chrono::steady_clock::now();
  ResumedRun resumed;
  if (!runCheckpoint.empty()) resumed = resumeRunCheckpoint(runCheckpoint, cfg);
  // A continued run keeps the thread count it started with (summation order); restored after.
  const int threadsBefore = intraOpThreads();
  const int threads = resumed.trainer ? resumed.threads : threadsBefore;
  if (threads != threadsBefore) setThisThreadIntraOpThreads(threads);
  struct RestoreThreads {
    int n;
    ~RestoreThreads() {
      if (intraOpThreads() != n) setThisThreadIntraOpThreads(n);
    }
  } restore{threadsBefore};
  std::unique_ptr<Trainer> owned =
      resumed.trainer ? std::move(resumed.trainer) : std::make_unique<Trainer>(cfg);
  Trainer& trainer = *owned;
  const auto secondsSoFar = [&] {
    return resumed.seconds +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  const auto stopRequested = [&] { return checkpointing.stop && checkpointing.stop->load(); };
  // A stop or a cancel during an evaluation acts before its next batch (EvaluationStopped).
  trainer.setEvaluationStop([&] { return cancelled || stopRequested(); });
  // The run's evaluations at run.evalLengths, reporting each batch.
  const auto evaluate = [&](long long step) {
    const std::vector<long long>& lengths = trainer.config().run.evalLengths;
    if (!evalProgress) return trainer.evaluate(lengths);
    EvaluationProgress at;
    at.step = step;
    at.lengthCount = lengths.size();
    return trainer.evaluate(lengths, 0,
                            [&](size_t index, long long L, long long done, long long n) {
                              at.lengthIndex = index;
                              at.length = L;
                              at.done = done;
                              at.perLength = n;
                              evalProgress(at);
                            });
  };
  // Stopped by checkpointing.stop: the run's checkpoint at its last complete step (an evaluation
  // it was in is done again when it continues: evaluation reads the weights only). Cancelled, or
  // stopped without a checkpoint path: nothing kept.
  const auto endStopped = [&] {
    if (!stopRequested() || runCheckpoint.empty()) return RunEnd::Cancelled;
    saveRunCheckpoint(runCheckpoint, trainer, cfg, threads, secondsSoFar());
    savedStep = trainer.stepCount();
    return RunEnd::Stopped;
  };
  double tokens = 0;
  TrainingCallbacks callbacks;
  callbacks.onStep = [&](const Snapshot& snap) {
    if (snap.tokensPerSecond > 0)
      tokens += static_cast<double>(cfg.optim.batch * cfg.task.trainLength);
    return !cancelled && !stopRequested();
  };
  callbacks.evaluate = [&](Trainer&, Snapshot& snap) { snap.eval = evaluate(snap.step); };
  callbacks.onSnapshot = [&](const Snapshot& snap) {
    if (cancelled || stopRequested()) return false;
    if (progress) progress(snap);
    if (!runCheckpoint.empty() && checkpointing.everySteps > 0 &&
        snap.step % checkpointing.everySteps == 0 && !isFinalStep(cfg.run, snap.step))
      saveRunCheckpoint(runCheckpoint, trainer, cfg, threads, secondsSoFar());
    return true;
  };
  TrainingResult trained;
  try {
    trained = runTraining(trainer, callbacks);
  } catch (const EvaluationStopped&) {
    return endStopped();  // the step is complete; its evaluation was not
  }
  if (trained.outcome == TrainingOutcome::Stopped) return endStopped();
  if (trained.outcome == TrainingOutcome::Diverged) {
    r.error = trained.last.message;
    return RunEnd::Ended;
  }
  try {
    // A run with no step left has had no final evaluation.
    r.eval = !trained.last.eval.empty() ? trained.last.eval : evaluate(trainer.stepCount());
    r.pjLoo = trainer.pjOrderLoo(cfg.task.trainLength);
  } catch (const EvaluationStopped&) {
    return endStopped();
  }
  r.position = trainer.positionParametersMean();
  setTeacherSpread(trainer, r);
  r.seconds = secondsSoFar();
  r.tokensPerSecond = tokens / std::max(r.seconds - resumed.seconds, 1e-9);
  if (!checkpointDir.empty()) {
    std::filesystem::create_directories(checkpointDir);
    // A family loaded from a file (file:PATH) is named by the file's base name: its id holds
    // slashes, which would name folders that do not exist.
    const std::string name =
        isFileFamilyId(r.family)
            ? "file-" +
                  std::filesystem::path(r.family.substr(std::string(kFileFamilyPrefix).size()))
                      .stem()
                      .string()
            : r.family;
    trainer.saveCheckpoint(checkpointDir + "/" + name + (r.variant.empty() ? "" : "-" + r.variant) +
                           "-seed" + std::to_string(r.seed) + ".pt");
  }
  return RunEnd::Ended;
}

}  // namespace

SweepStopped::SweepStopped(std::vector<SavedRun> savedRuns)
    : Error(std::to_string(savedRuns.size()) + " run(s) in flight saved"),
      saved(std::move(savedRuns)) {}

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
                                     const ExperimentRunFilter& selected,
                                     const RunCheckpointing& checkpointing,
                                     const ExperimentEvalProgress& evalProgress) {
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
  std::vector<SweepStopped::SavedRun> saved;  // runs stopped by checkpointing.stop
  std::atomic<size_t> ended{0};               // runs trained to their end
  auto work = [&] {
    for (size_t k = next++; k < chosen.size(); k = next++) {
      const size_t i = chosen[k];
      if (checkpointing.stop && checkpointing.stop->load()) return;  // start no new run
      try {
        const std::string runCheckpoint = checkpointing.path ? checkpointing.path(i) : "";
        long long savedStep = 0;
        const RunEnd end = trainRun(
            plan[i], results[i],
            [&](const Snapshot& snap) {
              if (!progress) return;
              std::lock_guard<std::mutex> lock(progressMutex);
              progress(i, total, labels[i], snap);
            },
            [&](const EvaluationProgress& at) {
              if (!evalProgress) return;
              std::lock_guard<std::mutex> lock(progressMutex);
              evalProgress(i, total, labels[i], at);
            },
            failed, checkpointDir, runCheckpoint, checkpointing, savedStep);
        if (end == RunEnd::Cancelled) return;  // another job failed
        if (end == RunEnd::Stopped) {
          std::lock_guard<std::mutex> lock(progressMutex);
          saved.push_back({i, savedStep, runCheckpoint});
          next = chosen.size();  // no new run starts
          return;
        }
        if (runDone) {
          std::lock_guard<std::mutex> lock(progressMutex);
          runDone(i, total, results[i]);
        }
        if (!runCheckpoint.empty()) removeRunCheckpoint(runCheckpoint);  // its result is kept
        ++ended;
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
  if (ended < chosen.size() && checkpointing.stop && checkpointing.stop->load()) {
    std::sort(saved.begin(), saved.end(),
              [](const auto& a, const auto& b) { return a.index < b.index; });
    throw SweepStopped(std::move(saved));
  }
  return results;
}

}  // namespace poslab
