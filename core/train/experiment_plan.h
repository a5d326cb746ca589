// The runs of an experiment, in the order they are trained and reported: for each task variant
// (at least one), each family, each seed. One function plans them for the CLI (runExperiment) and
// the GUI (the Presets menu loads the first run's task), so a variant means the same everywhere.
// Plain data, no torch.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "train/preset.h"
#include "train/train_config.h"

namespace poslab {

struct PlannedRun {
  TrainConfig config;   // spec.base with this run's family, seed, family parameters and variant
  std::string family;   // model.family
  uint64_t seed = 0;    // run.seed
  std::string variant;  // the variant's values joined by ",", e.g. "phase"; empty if none
};

// The fields a variant may set (see experiment_spec.h): the task's "id", "kernel", "text_file";
// "sectors" (model.pj_sectors: the PJ sector set, e.g. "fj_affine"); and any task option as
// "options.NAME" with its number in a string, e.g. {"options.attention_lambda": "8"}.
const std::vector<std::string>& taskVariantKeys();  // the fixed keys; options.NAME besides
inline const std::string kVariantOptionPrefix = "options.";
bool isVariantKey(const std::string& key);
// Sets each of the variant's fields in `config`. Throws InvalidArgument for a key it does not know
// or an option value that is no number.
void applyTaskVariant(const std::map<std::string, std::string>& variant, TrainConfig& config);

// Several families: each run's model.pinned holds only the pins its family learns
// (pinsTheFamilyLearns), so `--pin gamma` beside rope holds damped-rope's gamma and leaves rope
// alone.
std::vector<PlannedRun> planExperiment(const ExperimentSpec& spec);

// The experiment's pins (base.model.pinned) against its families, each with its family_params:
// with one family, each pin one it learns (checkPinsApply); with several, each pin learned by at
// least one of them (checkPinsApplyToSome; planExperiment then narrows each run's). Throws
// InvalidArgument naming the pin and the families. The one rule for the CLI's compare and
// checkTrainable (train/trainable_check.h).
void checkExperimentPins(const ExperimentSpec& spec);

// How many runs planExperiment plans: variants (at least one) x families x seeds.
size_t experimentRunCount(const ExperimentSpec& spec);

}  // namespace poslab
