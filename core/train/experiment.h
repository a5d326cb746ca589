// Several families (and seeds) trained on identical data: what `compare`, `run --preset` and the
// GUI's compare mode share. Same seed = same batches for every family (data seeds depend only on
// the run seed and the step), so differences come from the encodings alone.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "train/experiment_plan.h"
#include "train/preset.h"
#include "train/snapshot.h"
#include "train/train_config.h"
#include "train/trainer.h"

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

std::vector<RunResult> runExperiment(const ExperimentSpec& spec, const ExperimentProgress& progress,
                                     const std::string& checkpointDir = {}, int jobs = 1,
                                     const ExperimentRunDone& runDone = {},
                                     const ExperimentRunFilter& selected = {});

// The job count `compare` and `run` use when not told: one per intra-op thread (core) on the CPU,
// one when the runs go to a GPU (they would share it, and CPU threads do not speed it up).
int defaultExperimentJobs(const TrainConfig& base);

}  // namespace poslab
