#include "limits/view_work.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>

#include "analysis/feature_norms.h"
#include "analysis/kernel_probe.h"
#include "analysis/pj_adaptive.h"
#include "analysis/pj_diagnostics.h"
#include "encodings/registry.h"
#include "encodings/torchscript_family.h"
#include "limits/work_budget.h"

namespace poslab {

namespace {
std::string headsText(const Encoding& family) {
  return std::to_string(family.heads()) + " heads of head_dim " + std::to_string(family.headDim());
}

std::string number(double v) {  // as the file has it: 200000, 0.5
  char text[40];
  std::snprintf(text, sizeof text, "%.10g", v);
  return text;
}

// The field of a state that asks for the view's work, and its value.
std::string fieldOf(const ViewWorkRequest& r) {
  if (r.view == "kernel") return "views.kernel.lags' = " + std::to_string(r.lagCount);
  if (r.view == "attention") return "views.attention.T' = " + std::to_string(r.T);
  if (r.view == "norms") return "views.norms.max_position' = " + std::to_string(r.maxPos);
  const auto L = r.params.find("L");
  if (L == r.params.end()) return "explorer.values'";
  return "explorer.values.L' = " + number(L->second);
}
}  // namespace

void checkKernelViewWork(const Encoding& family, long long lagCount, bool logLag) {
  const long long first = logLag ? 1 : 0;
  long long columns = 0;
  try {
    columns = static_cast<long long>(family.basis(lagRange(first, first + 1)).names.size());
  } catch (const std::exception&) {
    return;  // no kernel form (a file family without kernel()): the view says so, computing nothing
  }
  checkWorkFits(lagTableCost(lagCount, columns, LagTableOutput::Plot),
                "lags " + std::to_string(lagCount) + " (" + std::to_string(columns) + " columns)");
}

void checkAttentionViewWork(const Encoding& family, long long T) {
  checkWorkFits(attentionMapCost(T, family.heads(), family.headDim()),
                "T " + std::to_string(T) + " (" + headsText(family) + ")");
}

void checkNormsViewWork(const Encoding& family, long long maxPos) {
  const auto grid = static_cast<long long>(logPositionGrid(std::max<long long>(maxPos, 1)).size());
  checkWorkFits(
      featureNormCost(maxPos, grid, family.isRelative(), family.heads(), family.headDim()),
      "largest position " + std::to_string(maxPos) + " (" + headsText(family) + ")");
}

void checkProbeViewWork(const ProbeSettings& settings) {
  const ProbeSize size = probeSize(settings);
  checkWorkFits(kernelProbeCost(size.families, size.channels, size.trainLength),
                "L " + std::to_string(size.trainLength) + " with " + std::to_string(size.families) +
                    " families and " + std::to_string(size.channels) + " channels");
}

void checkDiagnosticsViewWork(const std::string& target,
                              const std::map<std::string, double>& pjSets) {
  if (isPjAdaptiveTarget(target)) return;
  const auto pj = makeEncoding(kPjDiagnosticsFamily, pjSets);
  const long long order = pj->params().getInt("order");
  const auto L = static_cast<long long>(pj->params().get("L"));
  checkWorkFits(pjTargetFitCost(L, order),
                "L " + std::to_string(L) + " (order " + std::to_string(order) + ")");
}

ProbeSettings probeSettingsOf(const ViewWorkRequest& r) {
  ProbeSettings s;
  s.target = r.probeTarget;
  s.overrides = r.overrides;
  if (r.probeFamilyOnly) s.families = {r.family};
  return s;
}

std::map<std::string, double> pjDiagnosticsSets(const ViewWorkRequest& r) {
  if (r.family == kPjDiagnosticsFamily) return r.overrides;
  return {};
}

std::string viewWorkProblem(const ViewWorkRequest& r) {
  std::unique_ptr<Encoding> family;
  try {
    family = makeEncoding(r.family, r.params);
  } catch (const std::exception&) {
    return {};  // not a question of work: the view reports it when it computes
  }
  try {
    if (r.view == "kernel")
      checkKernelViewWork(*family, r.lagCount, r.logLag);
    else if (r.view == "attention")
      checkAttentionViewWork(*family, r.T);
    else if (r.view == "norms")
      checkNormsViewWork(*family, r.maxPos);
    else if (r.view == "probe")
      checkProbeViewWork(probeSettingsOf(r));
    else if (r.view == "diagnostics")
      checkDiagnosticsViewWork(r.diagnosticsTarget, pjDiagnosticsSets(r));
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

std::string stateViewWorkProblem(const ViewWorkRequest& r) {
  const std::string problem = viewWorkProblem(r);
  return problem.empty() ? problem : "field '" + fieldOf(r) + ": " + problem;
}

bool viewWorkRequestOfState(const nlohmann::json& state, ViewWorkRequest* out) {
  ViewWorkRequest r;
  r.view = state.value("tab", r.view);
  std::map<std::string, double> values;
  if (auto e = state.find("explorer"); e != state.end()) {
    r.family = e->value("family", r.family);
    if (auto v = e->find("values"); v != e->end()) values = v->get<std::map<std::string, double>>();
  }
  if (isFileFamilyId(r.family)) return false;
  const auto& families = allFamilies();
  auto info = std::find_if(families.begin(), families.end(),
                           [&](const FamilyInfo* f) { return f->id == r.family; });
  if (info == families.end()) return false;  // checkWindowState names it
  for (const ParamSpec& p : (*info)->params) {
    auto it = values.find(p.name);
    const double value = it == values.end() ? p.defaultValue : it->second;
    r.params[p.name] = value;
    if (value != p.defaultValue) r.overrides[p.name] = value;
  }
  const nlohmann::json views = state.value("views", nlohmann::json::object());
  auto view = [&](const char* name) {
    return views.contains(name) ? views[name] : nlohmann::json::object();
  };
  r.lagCount = view("kernel").value("lags", r.lagCount);
  r.logLag = view("kernel").value("log_lag", r.logLag);
  r.T = view("attention").value("T", r.T);
  r.maxPos = view("norms").value("max_position", r.maxPos);
  r.probeTarget = view("probe").value("target", r.probeTarget);
  r.probeFamilyOnly = view("probe").value("family_only", r.probeFamilyOnly);
  r.diagnosticsTarget = view("diagnostics").value("target", r.diagnosticsTarget);
  *out = r;
  return true;
}

}  // namespace poslab
