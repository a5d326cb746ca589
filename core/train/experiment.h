// Several families (and seeds) trained on identical data: what `compare`, `run --preset` and the
// GUI's compare mode share. Same seed = same batches for every family (data seeds depend only on
// the run seed and the step), so differences come from the encodings alone.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "train/experiment_plan.h"
#include "train/preset.h"
#include "train/snapshot.h"
#include "train/train_config.h"
#include "train/trainer.h"
#include "util/error.h"

namespace poslab {

struct RunResult {
  std::string family;
  uint64_t seed = 0;
  std::string variant;  // task variant (e.g. the teacher), empty if none
  std::vector<EvalResult> eval;
  std::map<std::string, std::vector<double>>
      position;  // learned position parameters, mean over layers
  std::vector<std::map<std::string, std::vector<double>>> positionLayers;  // per layer, on request
  std::vector<OrderLoo> pjLoo;  // PJ-bias: task-loss increase per zeroed order
  // Tasks with Task::teacherAttention (sector-teacher): the entropy (nats) and effective support
  // of the teacher's softmax(lambda K) at the training length, beside each evaluation's
  // final-query numbers; NaN otherwise.
  double teacherEntropy = NAN;
  double teacherSupport = NAN;
  double seconds = 0;
  double tokensPerSecond = 0;
  std::string error;  // non-empty if the run failed (diverged, bad config)
};

// Sets r.teacherEntropy and r.teacherSupport from the trainer's task at its training length
// (Task::teacherAttention); leaves them NaN for a task without a teacher attention.
void setTeacherSpread(const Trainer& trainer, RunResult& r);

// Progress of one run: (run index, run count, the run's family/seed/variant, snapshot), once per
// step after its evaluation if one was due (training_loop.h: snap.eval filled every
// run.evalEvery steps and at the last step, which has event Finished). With several jobs it
// comes from their threads, one call at a time, runs interleaved.
using ExperimentProgress = std::function<void(size_t, size_t, const RunResult&, const Snapshot&)>;

// Where a run's evaluation is, after each of its batches: the evaluations a run reports (every
// run.evalEvery steps and after the last step) take minutes at a paper's lengths on a CPU.
struct EvaluationProgress {
  long long step = 0;       // the steps trained before it
  size_t lengthIndex = 0;   // which of run.evalLengths, 0-based
  size_t lengthCount = 0;   // how many lengths it evaluates
  long long length = 0;     // tokens per sequence at this length
  long long done = 0;       // sequences done at this length
  long long perLength = 0;  // sequences per length
};
// (run index, run count, the run's family/seed/variant, where its evaluation is); from the jobs'
// threads, one call at a time, serialised with the other callbacks.
using ExperimentEvalProgress =
    std::function<void(size_t, size_t, const RunResult&, const EvaluationProgress&)>;

// Trains every run of planExperiment(spec); a run that diverges is reported, not fatal. Results are
// in plan order (variant, family, seed) whatever `jobs` is. jobs > 1 trains that many runs at once,
// each on its own thread with this thread's intra-op threads split between them: for the small
// models here, two one-thread runs on two cores do about twice the work of one two-thread run.
// A run's numbers can differ in the last bits between thread counts (summation order).
// Called once per run when it has ended (trained, evaluated and saved, or failed: r.error), from
// the job's thread, serialised with the progress calls.
using ExperimentRunDone = std::function<void(size_t, size_t, const RunResult&)>;
// Which planned runs (by plan index) this call trains; the others are left with only their family,
// seed and variant, and no callback sees them. Empty: all. (A distributed sweep gives each rank its
// share, and skips the runs already on disk: core/dist/distributed_sweep.h.)
using ExperimentRunFilter = std::function<bool(size_t)>;

// Periodic checkpoints of the runs in flight, so that a sweep killed in the middle of a run (a
// session's end, SIGTERM, kill -9, a preempted job) continues it where it was when the same sweep
// is started again, with the numbers of an uninterrupted run bit for bit (same machine; the run
// keeps the intra-op thread count it started with, saved beside its checkpoint).
struct RunCheckpointing {
  // Where planned run `index` keeps its checkpoint while it trains (empty: no checkpointing).
  // Beside it, PATH.json holds its config, the thread count and the seconds trained so far. A run
  // whose checkpoint exists when it starts continues from it (refused, naming the file, when it
  // was written for another config); both files are removed once the run has ended and runDone
  // has kept its result.
  std::function<std::string(size_t index)> path;
  long long everySteps = 0;  // a checkpoint after every this many steps (0: only when stopped)
  // Set from outside (a signal handler): each run in flight writes its checkpoint after the step
  // it is in, or at once when it is evaluating (the evaluation stops within a batch and is done
  // again when the run continues), and runExperiment throws SweepStopped.
  const std::atomic<bool>* stop = nullptr;
};

// runExperiment was stopped through RunCheckpointing::stop; every run in flight was saved.
class SweepStopped : public Error {
 public:
  struct SavedRun {
    size_t index = 0;    // plan index
    long long step = 0;  // steps done, saved in its checkpoint
    std::string path;    // its checkpoint
  };
  explicit SweepStopped(std::vector<SavedRun> saved);
  std::vector<SavedRun> saved;
};

std::vector<RunResult> runExperiment(const ExperimentSpec& spec, const ExperimentProgress& progress,
                                     const std::string& checkpointDir = {}, int jobs = 1,
                                     const ExperimentRunDone& runDone = {},
                                     const ExperimentRunFilter& selected = {},
                                     const RunCheckpointing& checkpointing = {},
                                     const ExperimentEvalProgress& evalProgress = {});

// The job count `compare` and `run` use when not told: one per intra-op thread (core) on the CPU,
// one when the runs go to a GPU (they would share it, and CPU threads do not speed it up).
int defaultExperimentJobs(const TrainConfig& base);

}  // namespace poslab
