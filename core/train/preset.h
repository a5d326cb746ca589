// The preset files (resources/presets/NAME.json) that hold the papers' experiments, in the
// experiment format of experiment_spec.h. Plain data, no torch: the GUI's Presets menu uses it.
#pragma once

#include <string>
#include <vector>

#include "train/experiment_spec.h"

namespace poslab {

// Loads a preset by name (resources/presets/NAME.json) or path, strictly (readExperimentFile).
// Throws InvalidArgument naming the file, the key path and the problem.
ExperimentSpec loadPreset(const std::string& nameOrPath);
// Names of the presets in the preset directory.
std::vector<std::string> presetNames();
std::string presetDirectory();

}  // namespace poslab
