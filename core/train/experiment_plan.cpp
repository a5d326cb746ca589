#include "train/experiment_plan.h"

#include <algorithm>

#include "util/error.h"

namespace poslab {

const std::vector<std::string>& taskVariantKeys() {
  static const std::vector<std::string> keys = {"id", "kernel", "text_file"};
  return keys;
}

void applyTaskVariant(const std::map<std::string, std::string>& variant, TaskConfig& task) {
  for (const auto& [key, value] : variant) {
    if (key == "id")
      task.id = value;
    else if (key == "kernel")
      task.kernel = value;
    else if (key == "text_file")
      task.textFile = value;
    else
      throw InvalidArgument("a task variant cannot set '" + key + "'",
                            "variants set id, kernel or text_file");
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
        applyTaskVariant(variant, p.config.task);
        for (const auto& [k, v] : variant) p.variant += (p.variant.empty() ? "" : ",") + v;
        plan.push_back(std::move(p));
      }
    }
  }
  return plan;
}

size_t experimentRunCount(const ExperimentSpec& spec) {
  return std::max<size_t>(1, spec.variants.size()) * spec.families.size() * spec.seeds.size();
}

}  // namespace poslab
