// Bridge TU: the explorer's work estimates (includes ATen through the core headers).
#include "bridge/explorer_work.h"

#include "encodings/encoding.h"
#include "limits/view_work.h"

namespace poslab::ui {

namespace {
const char* viewName(ExplorerView view) {
  switch (view) {
    case ExplorerView::Kernel:
      return "kernel";
    case ExplorerView::Attention:
      return "attention";
    case ExplorerView::Norms:
      return "norms";
    case ExplorerView::Probe:
      return "probe";
    case ExplorerView::Diagnostics:
      return "diagnostics";
  }
  return "kernel";
}
}  // namespace

ViewWorkRequest viewWorkRequestOf(const ExplorerRequest& req, ExplorerView view) {
  ViewWorkRequest r;
  r.view = viewName(view);
  r.family = req.family;
  r.params = req.params;
  r.overrides = req.overrides;
  r.lagCount = req.kernel.lagCount;
  r.logLag = req.kernel.logLag;
  r.T = req.attention.T;
  r.maxPos = req.norms.maxPos;
  r.probeTarget = req.probe.target;
  r.probeFamilyOnly = req.probe.familyOnly;
  r.diagnosticsTarget = req.diagnostics.target;
  return r;
}

void checkKernelWork(const Encoding& family, const KernelSettings& s) {
  checkKernelViewWork(family, s.lagCount, s.logLag);
}

void checkAttentionWork(const Encoding& family, const AttentionSettings& s) {
  checkAttentionViewWork(family, s.T);
}

void checkNormsWork(const Encoding& family, const NormsSettings& s) {
  checkNormsViewWork(family, s.maxPos);
}

ProbeSettings probeSettingsOf(const ExplorerRequest& req) {
  return poslab::probeSettingsOf(viewWorkRequestOf(req, ExplorerView::Probe));
}

void checkProbeWork(const ExplorerRequest& req) {
  checkProbeViewWork(probeSettingsOf(req));
}

std::map<std::string, double> pjDiagnosticsSets(const ExplorerRequest& req) {
  return poslab::pjDiagnosticsSets(viewWorkRequestOf(req, ExplorerView::Diagnostics));
}

void checkDiagnosticsWork(const ExplorerRequest& req) {
  checkDiagnosticsViewWork(req.diagnostics.target, pjDiagnosticsSets(req));
}

std::string explorerWorkProblem(const ExplorerRequest& request, ExplorerView view) {
  return viewWorkProblem(viewWorkRequestOf(request, view));
}

}  // namespace poslab::ui
