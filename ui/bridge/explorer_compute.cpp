// Bridge TU: the explorer's calls into core (includes ATen through the core headers).
#include "bridge/explorer_compute.h"

#include <algorithm>
#include <exception>
#include <optional>

#include "analysis/attention_map.h"
#include "analysis/feature_norms.h"
#include "analysis/pj_adaptive.h"
#include "analysis/pj_diagnostics.h"
#include "bridge/catalog.h"
#include "bridge/explorer_work.h"
#include "encodings/pj_bias.h"
#include "encodings/registry.h"
#include "tasks/lag_kernels.h"
#include "util/error.h"
#include "util/threads.h"

namespace poslab::ui {

namespace {

constexpr long long kMaxLags = 32768;  // the kernel view's largest lag count
constexpr long long kMaxMapT = 1024;   // the attention view's largest T
constexpr long long kMaxNormPos = 32768;

LagBasis computeKernel(const Encoding& enc, const KernelSettings& s) {
  if (s.lagCount < 2 || s.lagCount > kMaxLags)
    throw InvalidArgument("lag count " + std::to_string(s.lagCount) + " is not in 2.." +
                          std::to_string(kMaxLags));
  checkKernelWork(enc, s);  // nothing is computed over the budget (bridge/explorer_work.h)
  const long long first = s.logLag ? 1 : 0;  // a log axis cannot show lag 0
  return enc.basis(lagRange(first, first + s.lagCount));
}

// An overlay family's K(d): the panel's value for every parameter it shares with the current
// family, its own defaults for the rest. A shared value the family refuses on its own (out of its
// range) or in combination (core's check, as checkEncoding) falls back to its default, noted in
// *notes; a family that has no kernel K(d) or refuses even its defaults is skipped (nullopt, the
// reason in *notes). Never throws.
std::optional<KernelOverlay> computeOverlay(const std::string& id, const ExplorerRequest& req,
                                            std::vector<std::string>* notes) {
  const auto skip = [&](const std::string& why) {
    notes->push_back(id + " (overlay) not drawn: " + why);
    return std::nullopt;
  };
  const FamilyDescription* family = findFamily(id);
  if (!family) return skip("unknown family");
  if (id == req.family) return skip("it is the current family");
  KernelOverlay out;
  out.family = id;
  std::map<std::string, double> values;
  std::vector<std::string> taken;  // shared names whose panel value differs from the default
  for (const ParamSpec& spec : family->params) {
    values[spec.name] = spec.defaultValue;
    auto it = req.params.find(spec.name);
    if (it == req.params.end() || it->second == spec.defaultValue) continue;
    try {
      ParamSet single({spec}, {{spec.name, it->second}}, id);  // range and wholeness
      values[spec.name] = it->second;
      taken.push_back(spec.name);
    } catch (const std::exception& e) {
      out.fellBack.push_back(spec.name + " (" + e.what() + ")");
    }
  }
  std::unique_ptr<Encoding> enc;
  std::string refusal;
  for (size_t reverted = 0;; ++reverted) {
    try {
      enc = makeEncoding(id, values);
      break;
    } catch (const std::exception& e) {
      refusal = e.what();
    }
    // The combination is refused: give the shared values back to the defaults, one at a time.
    if (reverted == taken.size()) return skip(refusal);
    const std::string& name = taken[reverted];
    values[name] =
        std::find_if(family->params.begin(), family->params.end(), [&](const ParamSpec& p) {
          return p.name == name;
        })->defaultValue;
    out.fellBack.push_back(name + " (" + refusal + ")");
  }
  try {
    out.kernel = computeKernel(*enc, req.kernel).kernel;
  } catch (const std::exception& e) {
    return skip(e.what());
  }
  if (out.kernel.empty())
    return skip("the family defines no single kernel K(d), only basis functions");
  if (!out.fellBack.empty()) {
    std::string list;
    for (const std::string& f : out.fellBack) list += (list.empty() ? "" : "; ") + f;
    notes->push_back(id + " (overlay) at its default for " + list);
  }
  return out;
}

AttentionResult computeAttention(const Encoding& enc, const AttentionSettings& s) {
  if (s.T < 2 || s.T > kMaxMapT)
    throw InvalidArgument("T = " + std::to_string(s.T) + " is not in 2.." +
                          std::to_string(kMaxMapT));
  const long long H = enc.heads();
  // The head selector may still hold a head of the previous family: show the last one instead.
  const long long head = std::min(std::max<long long>(s.head, 1), H);
  checkMapFits(s.T, H);
  checkAttentionWork(enc, s);
  AttentionMap map = positionalAttentionMap(enc, s.T, head - 1);
  AttentionResult r;
  r.T = map.T;
  r.head = head;
  r.heads = H;
  r.weights = std::move(map.weights);
  r.toeplitzDeviation = map.toeplitzDeviation();
  return r;
}

PrecisionSummary summarize(const PrecisionReport& p) {
  return {p.ok, p.firstBadPosition, p.problem, p.detail};
}

NormsResult computeNorms(const Encoding& enc, const NormsSettings& s) {
  if (s.maxPos < 1 || s.maxPos > kMaxNormPos)
    throw InvalidArgument("largest position " + std::to_string(s.maxPos) + " is not in 1.." +
                          std::to_string(kMaxNormPos));
  checkNormsWork(enc, s);
  NormProfile prof = featureNormProfile(enc, logPositionGrid(s.maxPos));
  NormsResult r;
  r.factorized = prof.factorized;
  for (const NormRow& row : prof.rows) {
    r.positions.push_back(static_cast<double>(row.position));
    r.log10QueryRatio.push_back(row.log10QueryRatio);
    r.log10KeyRatio.push_back(row.log10KeyRatio);
    r.logitScale.push_back(row.logitScale);
    r.log10ChartQueryRatio.push_back(row.log10ChartQueryRatio);
    r.log10ChartKeyRatio.push_back(row.log10ChartKeyRatio);
  }
  r.chartL = prof.chart.L;
  r.chartNormBound = prof.chartNormBound;
  r.float32 = summarize(prof.float32);
  r.float64 = summarize(prof.float64);
  return r;
}

ProbeReport computeProbe(const ExplorerRequest& req) {
  checkProbeWork(req);
  return runKernelProbe(probeSettingsOf(req));
}

// As `poslab-cli diagnose`: the PJ-bias head's shape comes from the pj-bias parameters (the
// current ones when the family is pj-bias, else its defaults); its frequency is the target's.
DiagnosticsResult computeDiagnostics(const ExplorerRequest& req) {
  if (isPjAdaptiveTarget(req.diagnostics.target)) {  // as `poslab-cli diagnose --target NAME`
    const PjAdaptiveSettings settings;
    const PjAdaptiveResult a = runPjAdaptive(settings, {req.diagnostics.target}).front();
    DiagnosticsResult r;
    r.target = a.target;
    r.adaptive = true;
    r.omega = 2 * 3.14159265358979323846 * settings.omegaCycles /
              static_cast<double>(settings.trainLength);
    r.kernelMse = a.evalMse;
    r.trainLength = settings.trainLength;
    r.evalLength = settings.evalLength;
    r.trainMse = a.trainMse;
    r.trainR2 = a.trainR2;
    r.evalR2 = a.evalR2;
    for (int g = 0; g < 3; ++g) r.gates[g] = a.gates[static_cast<size_t>(g)];
    for (size_t k = 0; k < a.orderMass.size(); ++k)
      r.rows.push_back({"FJ+LC", static_cast<long long>(k), a.orderMass[k], a.energy[k], a.loo[k]});
    return r;
  }
  checkDiagnosticsWork(req);
  const std::map<std::string, double> sets = pjDiagnosticsSets(req);
  auto enc = makeEncoding(kPjDiagnosticsFamily, sets);
  const ParamSet& p = enc->params();
  LagKernelParams tp = defaultLagKernelParams(p.getInt("head_dim"), /*base=*/10000, p.get("L"));
  if (sets.count("omega")) tp.omega = sets.at("omega");
  const PjFit fit = fitPjToTarget(req.diagnostics.target, p, tp, /*frequencyFromTarget=*/true).fit;
  DiagnosticsResult r;
  r.target = req.diagnostics.target;
  r.omega = tp.omega;
  r.kernelMse = fit.diagnostics.kernelMse;
  for (const auto& row : fit.diagnostics.rows)
    r.rows.push_back({row.sector, row.order, row.massShare, row.energy, row.loo});
  return r;
}

}  // namespace

void useOneIntraOpThread() {
  setThisThreadIntraOpThreads(1);
}

ExplorerResult computeExplorer(const ExplorerRequest& req) {
  ExplorerResult r;
  r.id = req.id;
  r.view = req.view;
  r.family = req.family;
  try {
    switch (req.view) {
      case ExplorerView::Kernel:
        r.kernel = computeKernel(*makeEncoding(req.family, req.params), req.kernel);
        for (size_t n = 0; n < req.kernel.overlay.size(); ++n) {
          if (n >= static_cast<size_t>(kMaxKernelOverlays)) {
            r.overlayNotes.push_back(req.kernel.overlay[n] + " (overlay) not drawn: at most " +
                                     std::to_string(kMaxKernelOverlays) + " overlays");
            continue;
          }
          if (auto o = computeOverlay(req.kernel.overlay[n], req, &r.overlayNotes))
            r.overlays.push_back(std::move(*o));
        }
        break;
      case ExplorerView::Attention:
        r.attention = computeAttention(*makeEncoding(req.family, req.params), req.attention);
        break;
      case ExplorerView::Norms:
        r.norms = computeNorms(*makeEncoding(req.family, req.params), req.norms);
        break;
      case ExplorerView::Probe:
        makeEncoding(req.family, req.params);  // a bad combination is reported as such
        r.probe = computeProbe(req);
        break;
      case ExplorerView::Diagnostics:
        r.diagnostics = computeDiagnostics(req);
        break;
    }
  } catch (const std::exception& e) {
    r = ExplorerResult{};
    r.id = req.id;
    r.view = req.view;
    r.family = req.family;
    r.error = e.what();
  }
  return r;
}

}  // namespace poslab::ui
