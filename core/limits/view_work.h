// The explorer views' work (the window's kernel, attention, norms, probe and diagnostics views),
// estimated with work_budget.h's estimates and refused over the request budget: the one check the
// window makes before a view computes and when a session or lesson step is loaded, and that
// `poslab-cli lesson FILE` makes for every step, so that a lesson either front end refuses for its
// work is refused by both with the same line. Plain data, no Qt.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace poslab {

class Encoding;
struct ProbeSettings;

// Each throws InvalidArgument with one line naming the view's control and its value, the
// estimate and the budget: "T 1024 (64 heads of head_dim 1024) needs about 6.9e+10
// multiply-adds, over the budget of 5e+10 on this machine (...)". `family` is the view's encoding.
// The kernel view over lagCount lags (from 1 on a log axis); a family with no kernel form passes
// (the view says so and computes nothing).
void checkKernelViewWork(const Encoding& family, long long lagCount, bool logLag);
void checkAttentionViewWork(const Encoding& family, long long T);
void checkNormsViewWork(const Encoding& family, long long maxPos);
void checkProbeViewWork(const ProbeSettings& settings);
// The PJ fit of a lag-kernel target at the pj-bias parameters `pjSets` (its L and order); a sector
// target's adaptive recovery runs at fixed sizes and always fits.
void checkDiagnosticsViewWork(const std::string& target,
                              const std::map<std::string, double>& pjSets);

// One view of a window state, as the window would compute it. The defaults are a fresh window's
// (ui/bridge/explorer_types.h, ui/explorer/parameter_panel.h).
struct ViewWorkRequest {
  std::string view = "kernel";  // a tab: kernel, attention, norms, probe, diagnostics (or training)
  std::string family = "jordan-exact";
  std::map<std::string, double> params;         // every parameter of the family
  std::map<std::string, double> overrides;      // only those that differ from the family's defaults
  long long lagCount = 256;                     // views.kernel.lags
  bool logLag = false;                          // views.kernel.log_lag
  long long T = 128;                            // views.attention.T
  long long maxPos = 32768;                     // views.norms.max_position
  std::string probeTarget = "mixed";            // views.probe.target
  bool probeFamilyOnly = false;                 // views.probe.family_only
  std::string diagnosticsTarget = "mixed_raw";  // views.diagnostics.target
};

// The probe a request asks for: its overrides (only what the user changed: every default would,
// e.g., set the target's gamma too), its family alone or the paper's set.
ProbeSettings probeSettingsOf(const ViewWorkRequest& request);
// The pj-bias parameters of the diagnostics' head: the request's overrides when its family is
// pj-bias, else none (the defaults).
std::map<std::string, double> pjDiagnosticsSets(const ViewWorkRequest& request);

// Never throws: empty when the request's view fits the budget, is the training tab, or its family
// cannot be built (that is reported where it is computed); else the refusal's line without a
// field ("T 1024 (...) needs about ...").
std::string viewWorkProblem(const ViewWorkRequest& request);

// The same line behind the field of a session state that asks for the work, as session files and
// lesson steps are refused: "field 'views.attention.T' = 1024: T 1024 (...) needs about ...".
// The field is the view's setting (lags, T, largest position), or the family's L for the probe and
// the PJ diagnostics.
std::string stateViewWorkProblem(const ViewWorkRequest& request);

// A lesson step's merged state (a session object: docs/SESSIONS.md, checked by checkWindowState)
// over a fresh window's: built-in families only (a file family is left to the window that loads
// it: no request, `false`).
bool viewWorkRequestOfState(const nlohmann::json& state, ViewWorkRequest* out);

}  // namespace poslab
