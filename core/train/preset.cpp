#include "train/preset.h"

#include <algorithm>
#include <filesystem>

#include "io/resource_dir.h"
#include "util/error.h"

namespace poslab {

std::string presetDirectory() {
  return resourceDirectory() + "/presets";
}

std::vector<std::string> presetNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(presetDirectory(), ec))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string presetFile(const std::string& nameOrPath) {
  // A name that is a path (it exists, or names a folder or a .json file) is read as a file, so an
  // unreadable file is reported as such, not as an unknown preset.
  const bool looksLikePath = std::filesystem::exists(nameOrPath) ||
                             nameOrPath.find('/') != std::string::npos ||
                             std::filesystem::path(nameOrPath).extension() == ".json";
  if (looksLikePath) return nameOrPath;
  const std::string path = presetDirectory() + "/" + nameOrPath + ".json";
  if (!std::filesystem::exists(path)) {
    std::string known;
    for (const auto& n : presetNames()) known += (known.empty() ? "" : ", ") + n;
    throw InvalidArgument("unknown preset '" + nameOrPath + "'", "known presets: " + known);
  }
  return path;
}

std::string presetSource(const std::string& path) {
  return "preset file '" + path + "'";
}

ExperimentSpec loadPreset(const std::string& nameOrPath) {
  return readExperimentFile(presetFile(nameOrPath), "preset file");
}

}  // namespace poslab
