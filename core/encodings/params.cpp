#include "encodings/params.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "util/error.h"
#include "util/number_text.h"

namespace poslab {

std::string paramSymbol(const std::string& name) {
  static const std::map<std::string, std::string> symbols = {
      {"gamma", "γ"},
      {"omega", "ω"},
      {"eta", "η"},
      {"kappa", "κ"},
      {"rho", "ρ"},
      {"delta", "δ"},
      {"head_dim", "D"},
      {"heads", "H"},
      {"base", "base"},
      {"scale", "s"},
      {"order", "r"},
      {"g_fj", "g_{FJ}"},
      {"g_aff", "g_{aff}"},
      {"g_lc", "g_{LC}"},
      {"pin_omega", "pin ω"},
      {"affine_blocks", "n_{aff}"},
      // Task options (core/tasks/task_options.cpp) with a symbol in docs/MATH.md 3.2.1 and 3.4.
      {"omega2", "ω_2"},
      {"scaled_c", "c"},
      {"attention_lambda", "λ"},
  };
  auto it = symbols.find(name);
  if (it != symbols.end()) return it->second;
  // The jet-mix coefficients jet0, jet1, … are c_r of P(t) = Σ_r c_r t^r/r! N^r.
  const std::string order = name.substr(std::min<size_t>(name.size(), 3));
  if (name.compare(0, 3, "jet") == 0 && !order.empty() &&
      order.find_first_not_of("0123456789") == std::string::npos)
    return "c_{" + order + "}";
  return name;
}

std::string learnedParamSymbol(const std::string& name) {
  static const std::map<std::string, std::string> gates = {
      {"gate_FJ", "g_fj"}, {"gate_affine", "g_aff"}, {"gate_LC", "g_lc"}};
  if (auto it = gates.find(name); it != gates.end()) return paramSymbol(it->second);
  if (name == "delta_mean") return "δ̄";  // the mean over components c of δ_c
  if (name == "mass_affine") return "M(affine)";
  for (const char* sector : {"FJ", "LC"}) {
    const std::string prefix = std::string("mass_") + sector;
    const std::string order = name.substr(std::min(name.size(), prefix.size()));
    if (name.compare(0, prefix.size(), prefix) == 0 && !order.empty() &&
        order.find_first_not_of("0123456789") == std::string::npos)
      return "M(" + std::string(sector) + ", " + order + ")";
  }
  return paramSymbol(name);
}

std::string noEffectReason(const ParamSpec& spec, const std::map<std::string, double>& values) {
  for (const ParamNoEffect& n : spec.noEffectWhen) {
    auto it = values.find(n.other);
    if (it != values.end() && it->second == n.value) return n.reason;
  }
  return {};
}

void checkValue(const ParamSpec& spec, double value, const std::string& familyId) {
  const std::string where = familyId.empty() ? "" : " for family " + familyId;
  if (!std::isfinite(value)) {
    throw InvalidArgument(
        spec.name + " = " + formatNumber(value) + " is not finite" + where,
        "allowed range [" + formatNumber(spec.min) + ", " + formatNumber(spec.max) + "]");
  }
  if (value < spec.min || value > spec.max) {
    throw InvalidArgument(
        spec.name + " = " + formatNumber(value) + " is out of range" + where,
        "allowed range [" + formatNumber(spec.min) + ", " + formatNumber(spec.max) + "]");
  }
  if (spec.integer && value != std::floor(value)) {
    throw InvalidArgument(spec.name + " = " + formatNumber(value) + " must be a whole number" +
                          where);
  }
}

ParamSet::ParamSet(const std::vector<ParamSpec>& specs,
                   const std::map<std::string, double>& overrides, const std::string& familyId) {
  for (const auto& spec : specs) values_[spec.name] = spec.defaultValue;
  for (const auto& [name, value] : overrides) {
    const ParamSpec* found = nullptr;
    for (const auto& spec : specs)
      if (spec.name == name) found = &spec;
    if (found == nullptr) {
      std::string known;
      for (const auto& spec : specs) known += (known.empty() ? "" : ", ") + spec.name;
      throw InvalidArgument("unknown parameter '" + name + "' for family " + familyId,
                            "its parameters are: " + (known.empty() ? "(none)" : known));
    }
    checkValue(*found, value, familyId);
    values_[name] = value;
  }
}

double ParamSet::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw InvalidArgument("parameter '" + name + "' is not set");
  return it->second;
}

long long ParamSet::getInt(const std::string& name) const {
  return static_cast<long long>(std::llround(get(name)));
}

void requireShownHeadExists(const ParamSet& params, const std::string& familyId) {
  if (params.getInt("head") > params.getInt("heads")) {
    throw InvalidArgument("head = " + std::to_string(params.getInt("head")) + " exceeds heads = " +
                          std::to_string(params.getInt("heads")) + " for family " + familyId);
  }
}

std::pair<std::string, double> parseAssignment(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw InvalidArgument("'" + text + "' is not NAME=VALUE", "for example --set gamma=0.01");
  }
  const std::string name = text.substr(0, eq);
  const std::string valueText = text.substr(eq + 1);
  char* end = nullptr;
  const double value = std::strtod(valueText.c_str(), &end);
  if (end == valueText.c_str() || *end != '\0') {
    throw InvalidArgument("value of " + name + " ('" + valueText + "') is not a number");
  }
  return {name, value};
}

}  // namespace poslab
