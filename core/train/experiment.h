// Several families (and seeds) trained on identical data: what `compare`, `run --preset` and the
// GUI's compare mode share. Same seed = same batches for every family (data seeds depend only on
// the run seed and the step), so differences come from the encodings alone.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "train/snapshot.h"
#include "train/train_config.h"
#include "train/trainer.h"

namespace poslab {

struct ExperimentSpec {
  std::string name;                     // preset name or "compare"
  std::string description;              // one paragraph
  std::string paperResult;              // what the paper reports, for the report
  std::vector<std::string> families;    // e.g. {"pope", "rope"}
  std::vector<uint64_t> seeds{0};       // one run per (family, seed)
  TrainConfig base;                     // model.family is replaced per run
  std::map<std::string, std::map<std::string, double>> familyParams;  // per-family overrides
  std::vector<std::map<std::string, std::string>> variants;  // optional task variants (kernel)
};

struct RunResult {
  std::string family;
  uint64_t seed = 0;
  std::string variant;                  // task variant (e.g. the teacher), empty if none
  std::vector<EvalResult> eval;
  std::map<std::string, std::vector<double>> position;  // learned position parameters, layer 0
  std::vector<OrderLoo> pjLoo;          // PJ-bias: task-loss increase per zeroed order
  double seconds = 0;
  double tokensPerSecond = 0;
  std::string error;                    // non-empty if the run failed (diverged, bad config)
};

// Progress of the current run: (run index, run count, snapshot).
using ExperimentProgress = std::function<void(size_t, size_t, const RunResult&, const Snapshot&)>;

// Trains every (variant, family, seed); a run that diverges is reported, not fatal.
std::vector<RunResult> runExperiment(const ExperimentSpec& spec, const ExperimentProgress& progress,
                                     const std::string& checkpointDir = {});

// Loads a preset JSON file (resources/presets/NAME.json). Throws Error naming the file and the
// problem when it is missing or malformed.
ExperimentSpec loadPreset(const std::string& nameOrPath);
// Names of the presets in the preset directory.
std::vector<std::string> presetNames();
std::string presetDirectory();

}  // namespace poslab
