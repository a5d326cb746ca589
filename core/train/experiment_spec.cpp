#include "train/experiment_spec.h"

#include <algorithm>

#include "encodings/pj_sector_sets.h"
#include "encodings/registry.h"
#include "encodings/torchscript_family.h"
#include "io/json_fields.h"
#include "io/json_input.h"
#include "tasks/task_options.h"
#include "train/architecture.h"
#include "train/experiment_plan.h"
#include "util/error.h"

namespace poslab {

namespace {

using nlohmann::json;

const std::vector<std::string> kKeys = {"name",          "description", "paper",
                                        "architecture",  "families",    "seeds",
                                        "family_params", "variants",    "config"};

std::vector<std::string> familyIds() {
  std::vector<std::string> ids;
  for (const FamilyInfo* f : allFamilies()) ids.push_back(f->id);
  return ids;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

void checkFamily(const std::string& family, const JsonPath& at) {
  if (isFileFamilyId(family)) {
    try {
      familyInfo(family);  // loads and checks the TorchScript file
    } catch (const InvalidArgument& e) {
      at.fail(": " + std::string(e.what()));
    }
    return;
  }
  const std::vector<std::string> ids = familyIds();
  if (std::find(ids.begin(), ids.end(), family) == ids.end())
    at.fail(": unknown family '" + family + "'", "known: " + joined(ids) + "; or file:PATH.pt");
}

void readFamilies(const json& j, const JsonPath& at, std::vector<std::string>& out) {
  readJsonValue(j, at, anyValue(), out);
  if (out.empty()) at.fail("is empty", "list at least one family id, e.g. [\"rope\"]");
  for (size_t i = 0; i < out.size(); ++i) {
    checkFamily(out[i], at.index(i));
    // A repeated family trained twice and was reported as one with "2 seeds +- 0".
    for (size_t k = 0; k < i; ++k)
      if (out[k] == out[i])
        at.index(i).fail("repeats family \"" + out[i] + "\" (also at [" + std::to_string(k) + "])",
                         "list each family once");
  }
}

void readSeeds(const json& j, const JsonPath& at, std::vector<uint64_t>& out) {
  if (!j.is_array()) at.fail("must be a list of seeds, not " + shownJson(j));
  if (j.empty()) at.fail("is empty", "list at least one seed, e.g. [0]");
  out.assign(j.size(), 0);
  for (size_t i = 0; i < j.size(); ++i) {
    readJsonValue(j[i], at.index(i), anyValue(), out[i]);
    for (size_t k = 0; k < i; ++k)  // a repeated seed is the same run twice: no spread
      if (out[k] == out[i])
        at.index(i).fail(
            "repeats seed " + std::to_string(out[i]) + " (also at [" + std::to_string(k) + "])",
            "list each seed once");
  }
}

void readFamilyParams(const json& j, const JsonPath& at,
                      std::map<std::string, std::map<std::string, double>>& out) {
  if (!j.is_object()) at.fail("must be an object {family: {name: value}}, not " + shownJson(j));
  for (const auto& [family, params] : j.items()) {
    checkFamily(family, at.key(family));
    readJsonValue(params, at.key(family), anyValue(), out[family]);
  }
}

// Each variant sets task fields (or the PJ sector set); a kernel must be one the (variant's) task
// knows, a sector set one of pjSectorSetChoices, an option a number.
void readVariants(const json& j, const JsonPath& at, const TrainConfig& base,
                  std::vector<std::map<std::string, std::string>>& out) {
  if (!j.is_array()) at.fail("must be a list of objects, not " + shownJson(j));
  for (size_t i = 0; i < j.size(); ++i) {
    const JsonPath vp = at.index(i);
    if (!j[i].is_object()) vp.fail("must be an object, not " + shownJson(j[i]));
    for (const auto& [k, v] : j[i].items())
      if (!isVariantKey(k))
        vp.key(k).fail("is not a known field",
                       "known here: " + joined(taskVariantKeys()) + ", options.NAME");
    std::map<std::string, std::string> variant;
    for (const auto& [k, v] : j[i].items()) readJsonValue(v, vp.key(k), anyValue(), variant[k]);
    if (variant.count("sectors"))
      checkJsonValue(variant["sectors"], vp.key("sectors"), oneOf(pjSectorSetChoices()));
    TrainConfig c = base;
    for (const auto& [k, v] : variant) {
      try {
        applyTaskVariant({{k, v}}, c);
      } catch (const InvalidArgument& e) {
        vp.key(k).fail(std::string(": ") + e.what());
      }
    }
    const TaskConfig& t = c.task;
    const std::vector<std::string> kernels = taskKernelChoices(t.id);
    if (variant.count("kernel") && !kernels.empty())
      checkJsonValue(t.kernel, vp.key("kernel"), oneOf(kernels));
    out.push_back(variant);
  }
}

}  // namespace

json experimentToJson(const ExperimentSpec& s) {
  json j = {{"name", s.name},         {"description", s.description},
            {"paper", s.paperResult}, {"architecture", s.architecture},
            {"families", s.families}, {"seeds", s.seeds},
            {"config", json(s.base)}};
  if (!s.familyParams.empty()) j["family_params"] = s.familyParams;
  if (!s.variants.empty()) j["variants"] = s.variants;
  return j;
}

ExperimentSpec readExperiment(const json& j, const JsonPath& at) {
  checkJsonObject(j, at, kKeys);
  for (const char* required : {"families", "config"})
    if (!j.contains(required)) at.key(required).fail("is missing");
  ExperimentSpec s;
  if (auto it = j.find("name"); it != j.end()) readJsonValue(*it, at.key("name"), {}, s.name);
  if (auto it = j.find("description"); it != j.end())
    readJsonValue(*it, at.key("description"), {}, s.description);
  if (auto it = j.find("paper"); it != j.end())
    readJsonValue(*it, at.key("paper"), {}, s.paperResult);
  readFamilies(j.at("families"), at.key("families"), s.families);
  if (auto it = j.find("seeds"); it != j.end()) readSeeds(*it, at.key("seeds"), s.seeds);
  if (auto it = j.find("family_params"); it != j.end())
    readFamilyParams(*it, at.key("family_params"), s.familyParams);
  if (auto it = j.find("architecture"); it != j.end())
    readJsonValue(*it, at.key("architecture"), oneOf(architectureIds()), s.architecture);
  applyArchitecture(s.architecture, s.base);
  readTrainConfig(j.at("config"), at.key("config"), s.base);
  if (auto it = j.find("variants"); it != j.end())
    readVariants(*it, at.key("variants"), s.base, s.variants);
  return s;
}

ExperimentSpec readExperimentFile(const std::string& path, const std::string& what) {
  return readExperiment(readJsonFile(path, what), JsonPath{what + " '" + path + "'", ""});
}

}  // namespace poslab
