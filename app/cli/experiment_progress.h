// Progress of `compare` and `run --preset` on stderr. One job: a progress bar per run, as `train`
// draws it. Several jobs: one line per finished run, and on a terminal a live line with every
// active run's step and loss and the ETA of the whole experiment; off a terminal (a log file, CI)
// plain lines instead, one per run at each tenth of its steps, with the experiment's ETA. A run's
// evaluation, which takes minutes at a paper's lengths, says where it is in a plain line at most
// every kEvaluationLineSeconds per run (on a terminal with several jobs, in the live line). The
// experiment's ETA weighs steps and evaluations by their estimated work (core's RunWork), so
// that a paper preset's evaluations of minutes count; with one job it follows each finished run.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli/progress.h"
#include "train/experiment.h"
#include "train/run_limits.h"

namespace poslab::cli {

class ExperimentProgressView {
 public:
  // `work`: each planned run's estimated work, by plan index (plannedRunWork); `runs`: how many of
  // them this process trains (a resumed or distributed sweep trains fewer than planned).
  ExperimentProgressView(long long stepsPerRun, int jobs, std::vector<RunWork> work, size_t runs);
  // runExperiment's callbacks (one call at a time): a training step, and a run that has ended
  // (trained and evaluated, or failed).
  void update(size_t index, size_t total, const RunResult& run, const Snapshot& snap);
  void evaluation(size_t index, size_t total, const RunResult& run, const EvaluationProgress& at);
  void runDone(size_t index, size_t total, const RunResult& run);
  void finish();

  // Seconds between two evaluation lines of one run: a bounded rate however small the batches.
  static constexpr double kEvaluationLineSeconds = 5;

 private:
  struct Active {
    std::string label;       // "[3/15] rope seed 1"
    std::string shortLabel;  // "rope s1", for the live line
    long long step = 0;
    double loss = 0;
    double accuracy = 0;      // NaN for tasks without one
    int decile = -1;          // off a terminal: the last tenth of the steps a line was printed for
    std::string evaluating;   // "eval T=512 40%" while it evaluates, for the live line
    long long evalStep = 0;   // while it evaluates: the steps before the evaluation
    double evalFraction = 0;  // and how much of it is done (0..1)
    std::chrono::steady_clock::time_point evalStart;  // the evaluation's first batch
    std::chrono::steady_clock::time_point lastEvalLine;
    bool evalLinePrinted = false;  // this evaluation has printed a line
  };
  Active& activeRun(size_t index, size_t total, const RunResult& run);
  // "1/4 runs done, ETA 40s"
  std::string experimentEta(size_t total) const;
  // The estimated work of run `index` (zeros when unknown), and how much of it `a` has done.
  RunWork workOf(size_t index) const;
  static double workDone(const Active& a, const RunWork& w);
  void drawLive(size_t total);

  long long stepsPerRun_;
  int jobs_;
  bool tty_;
  // One job:
  std::unique_ptr<ProgressBar> bar_;
  size_t current_ = static_cast<size_t>(-1);
  // Several jobs:
  std::map<size_t, Active> active_;
  size_t finished_ = 0;
  std::vector<RunWork> work_;  // by plan index
  size_t runs_ = 0;            // runs this process trains
  double meanWork_ = 0;        // of a planned run
  double finishedWork_ = 0;    // of the runs finished here
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point lastDraw_;
};

// "[3/15] rope seed 1" (with the variant when there is one).
std::string runLabel(size_t index, size_t total, const RunResult& run);

}  // namespace poslab::cli
