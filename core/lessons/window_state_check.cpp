#include "lessons/window_state_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>

#include "analysis/kernel_probe.h"
#include "analysis/pj_adaptive.h"
#include "encodings/registry.h"
#include "encodings/torchscript_family.h"
#include "tasks/lag_kernels.h"
#include "util/error.h"

namespace poslab {

using nlohmann::json;

namespace {

std::vector<long long> powersOfTwo(long long first, long long last) {
  std::vector<long long> out;
  for (long long n = first; n <= last; n *= 2) out.push_back(n);
  return out;
}

std::string number(double v, int digits) {
  char text[40];
  std::snprintf(text, sizeof text, "%.*g", digits, v);
  return text;
}

template <class T>
std::string listed(const std::vector<T>& items) {
  std::string out;
  for (const T& v : items) {
    if (!out.empty()) out += ", ";
    if constexpr (std::is_same_v<T, std::string>)
      out += v;
    else
      out += std::to_string(v);
  }
  return out;
}

const FamilyInfo* builtInFamily(const std::string& id) {
  for (const FamilyInfo* f : allFamilies())
    if (f->id == id) return f;
  return nullptr;
}

// Reads `key` of object `j` into `out` when it is there (readJsonValue: its type, strictly).
template <class T>
void readIf(const json& j, const JsonPath& at, const char* key, T& out) {
  if (auto it = j.find(key); it != j.end()) readJsonValue(*it, at.key(key), anyValue(), out);
}

// The first problem of the state's content, "" when none.
std::string contentProblem(const json& state) {
  if (auto e = state.find("explorer"); e != state.end()) {
    const std::string family = e->at("family").get<std::string>();
    std::map<std::string, double> values;
    if (auto v = e->find("values"); v != e->end()) values = v->get<std::map<std::string, double>>();
    if (!isFileFamilyId(family)) {
      const FamilyInfo* info = builtInFamily(family);
      if (!info)
        return "field 'explorer.family': unknown family '" + family +
               "' (see `poslab-cli families`)";
      if (std::string p = explorerValuesProblem(family, info->params, values); !p.empty()) return p;
      try {
        makeEncoding(family, values);
      } catch (const std::exception& x) {
        return std::string("field 'explorer.values': ") + x.what();
      }
    }
  }
  // Only the fields the state has: the window keeps its own for the others.
  const json views = state.value("views", json::object());
  auto field = [&](const char* view, const char* key) -> const json* {
    if (!views.contains(view) || !views[view].contains(key)) return nullptr;
    return &views[view][key];
  };
  auto choice = [&](const auto& offered, const char* view, const char* key) -> std::string {
    const json* v = field(view, key);
    if (!v) return {};
    using Item = typename std::decay_t<decltype(offered)>::value_type;
    return viewChoiceProblem(offered, std::string("views.") + view + "." + key, v->get<Item>());
  };
  for (const std::string& p : {choice(kernelViewLagCounts(), "kernel", "lags"),
                               choice(attentionViewLengths(), "attention", "T"),
                               choice(normsViewMaxPositions(), "norms", "max_position"),
                               choice(probeTargetNames(), "probe", "target"),
                               choice(diagnosticsTargetNames(), "diagnostics", "target")})
    if (!p.empty()) return p;
  if (const json* overlay = field("kernel", "overlay")) {
    const std::string p = kernelOverlayProblem(
        overlay->get<std::vector<std::string>>(),
        [](const std::string& id) { return builtInFamily(id) != nullptr || isFileFamilyId(id); });
    if (!p.empty()) return p;
  }
  if (const json* h = field("attention", "head")) {
    const long long head = h->get<long long>();
    if (head < 1 || head > kMaxAttentionViewHead)
      return "field 'views.attention.head' = " + std::to_string(head) + " is outside [1, " +
             std::to_string(kMaxAttentionViewHead) + "]";
  }
  if (state.contains("tab")) {
    const std::string tab = state["tab"].get<std::string>();
    const auto& tabs = windowTabNames();
    if (std::find(tabs.begin(), tabs.end(), tab) == tabs.end()) {
      std::string names;
      for (const auto& t : tabs) names += (names.empty() ? "" : "|") + t;
      return "field 'tab' = \"" + tab + "\" is not one of " + names;
    }
  }
  return {};
}

}  // namespace

std::vector<long long> kernelViewLagCounts() {
  return powersOfTwo(16, 32768);
}
std::vector<long long> attentionViewLengths() {
  return powersOfTwo(16, 1024);
}
std::vector<long long> normsViewMaxPositions() {
  return powersOfTwo(256, 32768);
}

std::vector<std::string> diagnosticsTargetNames() {
  std::vector<std::string> names = lagKernelNames();
  for (const auto& n : pjAdaptiveTargetNames()) names.push_back(n);
  return names;
}

const std::vector<std::string>& windowTabNames() {
  static const std::vector<std::string> names = {"kernel", "attention",   "norms",
                                                 "probe",  "diagnostics", "training"};
  return names;
}

std::string explorerValuesProblem(const std::string& family, const std::vector<ParamSpec>& params,
                                  const std::map<std::string, double>& values) {
  for (const auto& [name, value] : values) {
    auto spec = std::find_if(params.begin(), params.end(),
                             [&](const ParamSpec& p) { return p.name == name; });
    if (spec == params.end())
      return "field 'explorer.values." + name + "': family " + family + " has no parameter '" +
             name + "'";
    if (!std::isfinite(value) || value < spec->min || value > spec->max)
      return "field 'explorer.values." + name + "' = " + number(value, 10) + " is outside [" +
             number(spec->min, 6) + ", " + number(spec->max, 6) + "] for family " + family;
    if (spec->integer && value != std::round(value))
      return "field 'explorer.values." + name + "' = " + number(value, 10) +
             " must be a whole number";
  }
  return {};
}

std::string viewChoiceProblem(const std::vector<long long>& offered, const std::string& field,
                              long long value) {
  if (std::find(offered.begin(), offered.end(), value) != offered.end()) return {};
  return "field '" + field + "' = " + std::to_string(value) + " is not one of " + listed(offered);
}

std::string viewChoiceProblem(const std::vector<std::string>& offered, const std::string& field,
                              const std::string& value) {
  if (std::find(offered.begin(), offered.end(), value) != offered.end()) return {};
  return "field '" + field + "' = \"" + value + "\" is not one of " + listed(offered);
}

void checkWindowState(const json& state, const std::string& source) {
  const JsonPath at{source, ""};
  // The shape: the session's fields, each of its type (sessionFromJson's, ui/session).
  checkJsonObject(
      state, at,
      {"format", "tab", "explorer", "views", "training", "trained_models", "family_files"});
  if (auto f = state.find("format"); f != state.end() && *f != kSessionFormat)
    at.key("format").fail("is " + shownJson(*f) + ", not \"" + kSessionFormat + "\"");
  if (state.contains("trained_models"))
    at.key("trained_models")
        .fail("is not allowed: a lesson cannot hold trained models",
              "give 'training' and \"train\": true instead");
  std::string text;
  bool flag = false;
  long long whole = 0;
  std::vector<std::string> names;
  readIf(state, at, "tab", text);
  if (auto e = state.find("explorer"); e != state.end()) {
    const JsonPath ea = at.key("explorer");
    checkJsonObject(*e, ea, {"family", "values"});
    if (!e->contains("family")) ea.key("family").fail("is missing");
    readIf(*e, ea, "family", text);
    std::map<std::string, double> values;
    readIf(*e, ea, "values", values);
  }
  if (auto v = state.find("views"); v != state.end()) {
    const JsonPath va = at.key("views");
    checkJsonObject(*v, va, {"kernel", "attention", "norms", "probe", "diagnostics"});
    auto view = [&](const char* name, const std::vector<std::string>& keys) -> const json* {
      auto it = v->find(name);
      if (it == v->end()) return nullptr;
      checkJsonObject(*it, va.key(name), keys);
      return &*it;
    };
    if (const json* k = view("kernel", {"lags", "log_lag", "overlay", "basis_axis"})) {
      readIf(*k, va.key("kernel"), "lags", whole);
      readIf(*k, va.key("kernel"), "log_lag", flag);
      readIf(*k, va.key("kernel"), "overlay", names);
      readIf(*k, va.key("kernel"), "basis_axis", flag);
    }
    if (const json* a = view("attention", {"T", "head", "log_color"})) {
      readIf(*a, va.key("attention"), "T", whole);
      readIf(*a, va.key("attention"), "head", whole);
      readIf(*a, va.key("attention"), "log_color", flag);
    }
    if (const json* n = view("norms", {"max_position"}))
      readIf(*n, va.key("norms"), "max_position", whole);
    if (const json* p = view("probe", {"target", "family_only"})) {
      readIf(*p, va.key("probe"), "target", text);
      readIf(*p, va.key("probe"), "family_only", flag);
    }
    if (const json* d = view("diagnostics", {"target"}))
      readIf(*d, va.key("diagnostics"), "target", text);
  }
  if (auto f = state.find("family_files"); f != state.end()) {
    if (!f->is_array()) at.key("family_files").fail("must be an array, not " + shownJson(*f));
    for (size_t i = 0; i < f->size(); ++i) {
      const JsonPath fa = at.key("family_files").index(i);
      checkJsonObject((*f)[i], fa, {"family", "hash"});
      for (const char* key : {"family", "hash"}) {
        if (!(*f)[i].contains(key)) fa.key(key).fail("is missing");
        readIf((*f)[i], fa, key, text);
      }
    }
  }
  // The content, as the window checks it.
  if (const std::string problem = contentProblem(state); !problem.empty())
    throw InvalidArgument(source.empty() ? problem : source + ": " + problem);
}

}  // namespace poslab
