// A named experiment: several families (and seeds, and task variants) trained on one TrainConfig,
// and its one JSON form: preset files (resources/presets/*.json), the "training" object of GUI
// sessions, a run report's setup.json. docs/SESSIONS.md lists the keys. Plain data, no torch.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "train/train_config.h"

namespace poslab {

struct JsonPath;

struct ExperimentSpec {
  std::string name;                     // preset name or "compare"
  std::string description;              // one paragraph
  std::string paperResult;              // what the paper reports, for the report
  std::string architecture = "poslab";  // train/architecture.h: applied before "config"
  std::vector<std::string> families;    // e.g. {"pope", "rope"}
  std::vector<uint64_t> seeds{0};       // one run per (variant, family, seed)
  TrainConfig base;                     // model.family is replaced per run
  std::map<std::string, std::map<std::string, double>> familyParams;  // per-family overrides
  // Optional task variants: each sets task fields (id, kernel, text_file), e.g. {"kernel":
  // "first_jet"}.
  std::vector<std::map<std::string, std::string>> variants;
};

// {"name", "description", "paper", "architecture", "families", "seeds", "config", and
// "family_params" and "variants" when not empty}.
nlohmann::json experimentToJson(const ExperimentSpec& spec);

// Strict: `j` must be an object with known keys only, "architecture" (default "poslab") one of
// architectureIds(), its fields set before "config" is read (so config's keys override them),
// "families" (at least one known family id) and "config" (a TrainConfig, see train_config.h)
// present, "seeds" (default [0]) not empty, each value of its type and in range. Throws
// InvalidArgument naming at.source and the key path.
ExperimentSpec readExperiment(const nlohmann::json& j, const JsonPath& at);
// readJsonFile(path, what) then readExperiment.
ExperimentSpec readExperimentFile(const std::string& path, const std::string& what);

}  // namespace poslab
