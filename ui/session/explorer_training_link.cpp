#include "session/explorer_training_link.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "bridge/catalog.h"

namespace poslab::ui {

namespace {
// Parameters the model fills in from its own size (core's resolvedFamilyParams).
bool setByTheModel(const std::string& name) {
  return name == "head_dim" || name == "heads";
}
}  // namespace

poslab::ExperimentSpec trainFromExplorer(const poslab::ExperimentSpec& setup,
                                         const std::string& family,
                                         const std::map<std::string, double>& values) {
  poslab::ExperimentSpec spec = setup;
  spec.families = {family};
  std::map<std::string, double>& params = spec.familyParams[family];
  params.clear();
  for (const auto& [name, value] : values)
    if (!setByTheModel(name)) params[name] = value;
  return spec;
}

std::map<std::string, double> explorerValuesFromRun(
    const std::string& family, const std::map<std::string, double>& start,
    const std::map<std::string, std::vector<double>>& learned, std::vector<std::string>* clamped) {
  std::map<std::string, double> values;
  const FamilyDescription* f = findFamily(family);
  if (!f) return values;
  for (const ParamSpec& p : f->params) {
    auto s = start.find(p.name);
    double v = s == start.end() ? p.defaultValue : s->second;
    auto l = learned.find(p.name);
    if (l != learned.end() && !l->second.empty()) {
      const double mean =
          std::accumulate(l->second.begin(), l->second.end(), 0.0) / double(l->second.size());
      if (std::isfinite(mean)) {
        v = std::clamp(mean, p.min, p.max);
        if (v != mean && clamped) clamped->push_back(p.name);
      }
    }
    values[p.name] = v;
  }
  return values;
}

}  // namespace poslab::ui
