#include "train/learned_values.h"

#include <algorithm>
#include <cmath>

#include "encodings/registry.h"
#include "util/error.h"

namespace poslab {

PositionParameters headOfParameters(const PositionParameters& learned, long long heads,
                                    long long head) {
  if (heads < 1 || head < 0 || head >= heads)
    throw InvalidArgument("head " + std::to_string(head + 1) + " of " + std::to_string(heads) +
                          " does not exist");
  PositionParameters out;
  for (const auto& [name, values] : learned) {
    const size_t n = values.size();
    const size_t h = static_cast<size_t>(heads);
    if (n == 0 || n % h != 0) {
      out[name] = values;
      continue;
    }
    const size_t per = n / h;
    const auto first = values.begin() + static_cast<std::ptrdiff_t>(per * head);
    out[name] = std::vector<double>(first, first + static_cast<std::ptrdiff_t>(per));
  }
  return out;
}

std::string explorerParamOfLearned(const std::string& family, const std::string& learnedName) {
  const std::map<std::string, std::string>& shows = familyInfo(family).learnedShows;
  const auto it = shows.find(learnedName);
  return it == shows.end() ? learnedName : it->second;
}

std::map<std::string, double> familyValuesFromLearned(const std::string& family,
                                                      const std::map<std::string, double>& start,
                                                      const PositionParameters& learned,
                                                      std::vector<std::string>* clamped,
                                                      std::vector<std::string>* unmatched) {
  const FamilyInfo& info = familyInfo(family);  // throws for an unknown id
  PositionParameters byParam;  // the learned values under the names of the parameters they show
  for (const auto& [name, v] : learned) byParam[explorerParamOfLearned(family, name)] = v;
  std::map<std::string, double> values;
  for (const ParamSpec& p : info.params) {
    const auto s = start.find(p.name);
    double v = s == start.end() ? p.defaultValue : s->second;
    const auto l = byParam.find(p.name);
    if (l != byParam.end() && !l->second.empty()) {
      double sum = 0;
      for (double x : l->second) sum += x;
      const double mean = sum / static_cast<double>(l->second.size());
      if (std::isfinite(mean)) {
        v = std::clamp(mean, p.min, p.max);
        if (v != mean && clamped) clamped->push_back(p.name);
      }
    }
    values[p.name] = v;
  }
  if (unmatched)
    for (const auto& [name, unused] : learned)
      if (!values.count(explorerParamOfLearned(family, name))) unmatched->push_back(name);
  return values;
}

}  // namespace poslab
