// Bridge TU: the explorer's work estimates (includes ATen through the core headers).
#include "bridge/explorer_work.h"

#include <algorithm>
#include <exception>
#include <memory>

#include "analysis/feature_norms.h"
#include "analysis/kernel_probe.h"
#include "analysis/pj_adaptive.h"
#include "analysis/pj_diagnostics.h"
#include "encodings/registry.h"
#include "limits/work_budget.h"

namespace poslab::ui {

namespace {
std::string headsText(const Encoding& family) {
  return std::to_string(family.heads()) + " heads of head_dim " + std::to_string(family.headDim());
}
}  // namespace

void checkKernelWork(const Encoding& family, const KernelSettings& s) {
  const long long first = s.logLag ? 1 : 0;
  const auto columns =
      static_cast<long long>(family.basis(lagRange(first, first + 1)).names.size());
  checkWorkFits(lagTableCost(s.lagCount, columns), "lags " + std::to_string(s.lagCount) + " (" +
                                                       std::to_string(columns) + " columns)");
}

void checkAttentionWork(const Encoding& family, const AttentionSettings& s) {
  checkWorkFits(attentionMapCost(s.T, family.heads(), family.headDim()),
                "T " + std::to_string(s.T) + " (" + headsText(family) + ")");
}

void checkNormsWork(const Encoding& family, const NormsSettings& s) {
  const auto grid =
      static_cast<long long>(logPositionGrid(std::max<long long>(s.maxPos, 1)).size());
  checkWorkFits(
      featureNormCost(s.maxPos, grid, family.isRelative(), family.heads(), family.headDim()),
      "largest position " + std::to_string(s.maxPos) + " (" + headsText(family) + ")");
}

ProbeSettings probeSettingsOf(const ExplorerRequest& req) {
  ProbeSettings s;
  s.target = req.probe.target;
  // Only what the user changed: passing every default would, e.g., set the target's gamma too.
  s.overrides = req.overrides;
  if (req.probe.familyOnly) s.families = {req.family};
  return s;
}

void checkProbeWork(const ExplorerRequest& req) {
  const ProbeSize size = probeSize(probeSettingsOf(req));
  checkWorkFits(kernelProbeCost(size.families, size.channels, size.trainLength),
                "L " + std::to_string(size.trainLength) + " with " + std::to_string(size.families) +
                    " families and " + std::to_string(size.channels) + " channels");
}

std::map<std::string, double> pjDiagnosticsSets(const ExplorerRequest& req) {
  if (req.family == kPjDiagnosticsFamily) return req.overrides;
  return {};
}

void checkDiagnosticsWork(const ExplorerRequest& req) {
  if (isPjAdaptiveTarget(req.diagnostics.target)) return;
  const auto pj = makeEncoding(kPjDiagnosticsFamily, pjDiagnosticsSets(req));
  const long long order = pj->params().getInt("order");
  const auto L = static_cast<long long>(pj->params().get("L"));
  // The fit's basis: FJ and LC cos/sin per order (2 (R + 1) each) and the affine column.
  checkWorkFits(pjFitCost(std::max<long long>(L - 1, 0), 4 * (order + 1) + 1),
                "L " + std::to_string(L) + " (order " + std::to_string(order) + ")");
}

std::string explorerWorkProblem(const ExplorerRequest& req, ExplorerView view) {
  std::unique_ptr<Encoding> family;
  try {
    family = makeEncoding(req.family, req.params);
  } catch (const std::exception&) {
    return {};  // not a question of work: the view reports it when it computes
  }
  try {
    switch (view) {
      case ExplorerView::Kernel:
        checkKernelWork(*family, req.kernel);
        break;
      case ExplorerView::Attention:
        checkAttentionWork(*family, req.attention);
        break;
      case ExplorerView::Norms:
        checkNormsWork(*family, req.norms);
        break;
      case ExplorerView::Probe:
        checkProbeWork(req);
        break;
      case ExplorerView::Diagnostics:
        checkDiagnosticsWork(req);
        break;
    }
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

}  // namespace poslab::ui
