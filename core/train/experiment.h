// Several families (and seeds) trained on identical data: what `compare`, `run --preset` and the
// GUI's compare mode share. Same seed = same batches for every family (data seeds depend only on
// the run seed and the step), so differences come from the encodings alone.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

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
  std::map<std::string, std::vector<double>> position;  // learned position parameters, layer 0
  std::vector<OrderLoo> pjLoo;  // PJ-bias: task-loss increase per zeroed order
  double seconds = 0;
  double tokensPerSecond = 0;
  std::string error;  // non-empty if the run failed (diverged, bad config)
};

// Progress of the current run: (run index, run count, snapshot).
using ExperimentProgress = std::function<void(size_t, size_t, const RunResult&, const Snapshot&)>;

// Trains every (variant, family, seed); a run that diverges is reported, not fatal.
std::vector<RunResult> runExperiment(const ExperimentSpec& spec, const ExperimentProgress& progress,
                                     const std::string& checkpointDir = {});

}  // namespace poslab
