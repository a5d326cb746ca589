// The explorer's work budgets: each view's request is estimated with core's view checks
// (limits/view_work.h, which `poslab-cli lesson` shares) and refused over the request budget
// before any of it is computed. A family's heads, head_dim or L can make a view's largest setting
// (a 1024 x 1024 map, 32768 lags, a probe at L 200000) cost minutes and gigabytes. Bridge code:
// the checks run where the views compute (the explorer's worker) and where a session or lesson is
// loaded.
#pragma once

#include <map>
#include <string>

#include "analysis/kernel_probe.h"  // ProbeSettings: plain data, no torch
#include "bridge/explorer_types.h"
#include "limits/view_work.h"  // ViewWorkRequest: plain data, no torch

namespace poslab {
class Encoding;
}

namespace poslab::ui {

// The request of `view` as core's view checks take it.
ViewWorkRequest viewWorkRequestOf(const ExplorerRequest& request, ExplorerView view);

// Each throws InvalidArgument with core's one line naming the view's control and its value, the
// estimate and the budget: "T 1024 (64 heads of head_dim 1024) needs about 6.9e+13 multiply-adds,
// over the budget of 5e+10 on this machine (...)". `family` is the request's encoding.
void checkKernelWork(const Encoding& family, const KernelSettings& settings);
void checkAttentionWork(const Encoding& family, const AttentionSettings& settings);
void checkNormsWork(const Encoding& family, const NormsSettings& settings);
// The probe the request asks for: its overrides (only what the user changed: every default would,
// e.g., set the target's gamma too), its family alone or the paper's set.
ProbeSettings probeSettingsOf(const ExplorerRequest& request);
void checkProbeWork(const ExplorerRequest& request);
// The pj-bias parameters of the diagnostics' head: the request's when its family is pj-bias,
// else the defaults.
std::map<std::string, double> pjDiagnosticsSets(const ExplorerRequest& request);
// The PJ fit of a lag-kernel target at those parameters' L and order; the adaptive recovery's
// sizes are fixed and always fit.
void checkDiagnosticsWork(const ExplorerRequest& request);

// Never throws: empty when `view` of `request` fits its budget (or its family cannot be built:
// that is reported where it is computed), else the refusal's line.
std::string explorerWorkProblem(const ExplorerRequest& request, ExplorerView view);

}  // namespace poslab::ui
