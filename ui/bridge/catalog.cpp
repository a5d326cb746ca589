// Bridge TU: includes core headers that pull ATen.
#include "bridge/catalog.h"

#include <algorithm>
#include <exception>
#include <memory>

#include "analysis/kernel_probe.h"
#include "analysis/pj_adaptive.h"
#include "bridge/loaded_families.h"
#include "encodings/registry.h"
#include "lessons/window_state_check.h"
#include "model/pin_check.h"
#include "model/position_module.h"
#include "tasks/lag_kernels.h"
#include "tasks/task.h"

namespace poslab::ui {

const std::vector<FamilyDescription>& familyCatalog() {
  static const std::vector<FamilyDescription> catalog = [] {
    std::vector<FamilyDescription> out;
    for (const FamilyInfo* f : allFamilies()) {
      FamilyDescription d;
      d.id = f->id;
      d.title = f->title;
      d.formula = f->formula;
      d.summary = f->summary;
      d.params = f->params;
      out.push_back(std::move(d));
    }
    return out;
  }();
  return catalog;
}

const FamilyDescription* findFamily(const std::string& id) {
  for (const auto& f : familyCatalog())
    if (f.id == id) return &f;
  return loadedFamilies().find(id);
}

std::string familyParamSymbol(const FamilyDescription& family, const std::string& name) {
  auto it = family.symbols.find(name);
  return it == family.symbols.end() ? paramSymbol(name) : it->second;
}

std::string checkEncoding(const std::string& id, const std::map<std::string, double>& params) {
  try {
    makeEncoding(id, params);
    return {};
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::map<std::string, double> familyStartValues(const std::string& family,
                                                const std::map<std::string, double>& params,
                                                long long dModel, long long heads,
                                                long long trainLength) {
  ModelConfig cfg;
  cfg.family = family;
  cfg.familyParams = params;
  cfg.dModel = dModel;
  cfg.heads = std::max(1LL, heads);
  return resolvedFamilyParams(cfg, trainLength);
}

std::string familyStartProblem(const std::string& family,
                               const std::map<std::string, double>& params, long long dModel,
                               long long heads, long long trainLength,
                               const std::vector<std::string>& pinned) {
  ModelConfig cfg;
  cfg.family = family;
  cfg.familyParams = params;
  cfg.dModel = dModel;
  cfg.heads = std::max(1LL, heads);
  cfg.pinned = pinned;
  try {
    checkTrainableStart(cfg, trainLength);
    return {};
  } catch (const std::exception& e) {
    return e.what();
  }
}

const std::vector<std::string>& familyPins(const std::string& family) {
  static std::map<std::string, std::vector<std::string>> known;  // UI thread only
  // A file loaded again may learn other parameters: its pins are known per content.
  const FamilyDescription* loaded = loadedFamilies().find(family);
  const std::string key = loaded ? family + "#" + loaded->hash : family;
  auto it = known.find(key);
  if (it != known.end()) return it->second;
  std::vector<std::string> pins;
  try {
    ModelConfig cfg;
    cfg.family = family;
    pins = learnedPinnables(cfg, /*trainLength=*/64);
  } catch (const std::exception&) {
    // a family that cannot be built here (a user file that is gone): no pins to offer
  }
  return known.emplace(key, std::move(pins)).first->second;
}

std::vector<std::string> trainingTaskIds() {
  return taskIds();
}
std::vector<long long> taskAccuracyDistances(const poslab::TaskConfig& config, long long length) {
  try {  // the outline: a text task's file is not read here, on the UI thread
    return makeTaskOutline(config)->accuracyDistances(length);
  } catch (const std::exception&) {
    return {};
  }
}
std::pair<long long, long long> taskLengthRange(const poslab::TaskConfig& config) {
  try {  // the outline: a text task's file is only sized, not read, on the UI thread
    const std::unique_ptr<Task> task = makeTaskOutline(config);
    return {task->minLength(), task->maxLength()};
  } catch (const std::exception&) {
    return {0, -1};
  }
}
std::vector<std::string> probeTargetNames() {
  return poslab::probeTargetNames();
}
std::vector<std::string> defaultProbeFamilyIds() {
  return defaultProbeFamilies();
}
std::vector<std::string> diagnosticsTargetNames() {
  return poslab::diagnosticsTargetNames();  // core's, which a lesson's state is checked against
}

}  // namespace poslab::ui
