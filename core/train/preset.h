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
// The file loadPreset reads: nameOrPath itself when it names a path, else the preset directory's
// NAME.json. Throws InvalidArgument("unknown preset ...") for a name that is no preset.
std::string presetFile(const std::string& nameOrPath);
// How messages name that file: "preset file 'PATH'" (the source of readExperimentFile's errors).
std::string presetSource(const std::string& path);
// Names of the presets in the preset directory.
std::vector<std::string> presetNames();
std::string presetDirectory();

}  // namespace poslab
