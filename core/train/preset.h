// A named experiment: several families (and seeds, and task variants) trained on one TrainConfig,
// and the preset files (resources/presets/NAME.json) that hold the papers' experiments. Plain data,
// no torch: the GUI's Presets menu and sessions use it directly.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "train/train_config.h"

namespace poslab {

struct ExperimentSpec {
  std::string name;                   // preset name or "compare"
  std::string description;            // one paragraph
  std::string paperResult;            // what the paper reports, for the report
  std::vector<std::string> families;  // e.g. {"pope", "rope"}
  std::vector<uint64_t> seeds{0};     // one run per (family, seed)
  TrainConfig base;                   // model.family is replaced per run
  std::map<std::string, std::map<std::string, double>> familyParams;  // per-family overrides
  std::vector<std::map<std::string, std::string>> variants;  // optional task variants (kernel)
};

// Loads a preset JSON file (resources/presets/NAME.json). Throws Error naming the file and the
// problem when it is missing or malformed.
ExperimentSpec loadPreset(const std::string& nameOrPath);
// Names of the presets in the preset directory.
std::vector<std::string> presetNames();
std::string presetDirectory();

}  // namespace poslab
