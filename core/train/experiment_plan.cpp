#include "train/experiment_plan.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "model/pin_check.h"
#include "util/error.h"

namespace poslab {

const std::vector<std::string>& taskVariantKeys() {
  static const std::vector<std::string> keys = {"id", "kernel", "text_file", "sectors"};
  return keys;
}

bool isVariantKey(const std::string& key) {
  const auto& fixed = taskVariantKeys();
  if (std::find(fixed.begin(), fixed.end(), key) != fixed.end()) return true;
  return key.size() > kVariantOptionPrefix.size() &&
         key.compare(0, kVariantOptionPrefix.size(), kVariantOptionPrefix) == 0;
}

void applyTaskVariant(const std::map<std::string, std::string>& variant, TrainConfig& config) {
  TaskConfig& task = config.task;
  for (const auto& [key, value] : variant) {
    if (key == "id") {
      task.id = value;
    } else if (key == "kernel") {
      task.kernel = value;
    } else if (key == "text_file") {
      task.textFile = value;
    } else if (key == "sectors") {
      config.model.pjSectors = value;
    } else if (isVariantKey(key)) {
      const std::string name = key.substr(kVariantOptionPrefix.size());
      size_t used = 0;
      double number = 0;
      try {
        number = std::stod(value, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != value.size() || !std::isfinite(number))
        throw InvalidArgument("variant key '" + key + "' = \"" + value + "\" is not a number",
                              "give the task option's value as a number in a string, e.g. \"8\"");
      task.options[name] = number;
    } else {
      throw InvalidArgument("a variant cannot set '" + key + "'",
                            "variants set id, kernel, text_file, sectors or options.NAME");
    }
  }
}

std::vector<PlannedRun> planExperiment(const ExperimentSpec& spec) {
  std::vector<std::map<std::string, std::string>> variants = spec.variants;
  if (variants.empty()) variants.push_back({});
  std::vector<PlannedRun> plan;
  for (const auto& variant : variants) {
    for (const auto& family : spec.families) {
      for (uint64_t seed : spec.seeds) {
        PlannedRun p;
        p.family = family;
        p.seed = seed;
        p.config = spec.base;
        p.config.model.family = family;
        p.config.run.seed = seed;
        auto fp = spec.familyParams.find(family);
        if (fp != spec.familyParams.end())
          for (const auto& [k, v] : fp->second) p.config.model.familyParams[k] = v;
        applyTaskVariant(variant, p.config);
        // Several families: each run pins what its family learns (checkTrainable refused a pin
        // that none learns).
        if (spec.families.size() > 1)
          p.config.model.pinned = pinsTheFamilyLearns(p.config.model, p.config.task.trainLength);
        for (const auto& [k, v] : variant) p.variant += (p.variant.empty() ? "" : ",") + v;
        plan.push_back(std::move(p));
      }
    }
  }
  return plan;
}

void checkExperimentPins(const ExperimentSpec& spec) {
  std::vector<std::pair<std::string, std::vector<std::string>>> learnedByFamily;
  for (const std::string& family : spec.families) {
    ModelConfig m = spec.base.model;
    m.family = family;
    if (auto fp = spec.familyParams.find(family); fp != spec.familyParams.end())
      for (const auto& [k, v] : fp->second) m.familyParams[k] = v;
    if (spec.families.size() == 1) return checkPinsApply(m, spec.base.task.trainLength);
    learnedByFamily.emplace_back(family, learnedPinnables(m, spec.base.task.trainLength));
  }
  checkPinsApplyToSome(spec.base.model.pinned, learnedByFamily);
}

size_t experimentRunCount(const ExperimentSpec& spec) {
  return std::max<size_t>(1, spec.variants.size()) * spec.families.size() * spec.seeds.size();
}

}  // namespace poslab
