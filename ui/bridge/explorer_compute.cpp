// Bridge TU: the explorer's calls into core (includes ATen through the core headers).
#include "bridge/explorer_compute.h"

#include <ATen/Parallel.h>
#include <dlfcn.h>

#include <algorithm>
#include <exception>

#include "analysis/attention_map.h"
#include "analysis/feature_norms.h"
#include "analysis/pj_diagnostics.h"
#include "encodings/pj_bias.h"
#include "encodings/registry.h"
#include "tasks/lag_kernels.h"
#include "util/error.h"

namespace poslab::ui {

namespace {

constexpr long long kMaxLags = 32768;  // the kernel view's largest lag count
constexpr long long kMaxMapT = 1024;   // the attention view's largest T
constexpr long long kMaxNormPos = 32768;

LagBasis computeKernel(const Encoding& enc, const KernelSettings& s) {
  if (s.lagCount < 2 || s.lagCount > kMaxLags)
    throw InvalidArgument("lag count " + std::to_string(s.lagCount) + " is not in 2.." +
                          std::to_string(kMaxLags));
  const long long first = s.logLag ? 1 : 0;  // a log axis cannot show lag 0
  return enc.basis(lagRange(first, first + s.lagCount));
}

AttentionResult computeAttention(const Encoding& enc, const AttentionSettings& s) {
  if (s.T < 2 || s.T > kMaxMapT)
    throw InvalidArgument("T = " + std::to_string(s.T) + " is not in 2.." + std::to_string(kMaxMapT));
  const long long H = enc.heads();
  // The head selector may still hold a head of the previous family: show the last one instead.
  const long long head = std::min(std::max<long long>(s.head, 1), H);
  checkMapFits(s.T, H);
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
  NormProfile prof = featureNormProfile(enc, logPositionGrid(s.maxPos));
  NormsResult r;
  r.factorized = prof.factorized;
  for (const NormRow& row : prof.rows) {
    r.positions.push_back(static_cast<double>(row.position));
    r.log10QueryRatio.push_back(row.log10QueryRatio);
    r.log10KeyRatio.push_back(row.log10KeyRatio);
    r.logitScale.push_back(row.logitScale);
  }
  r.float32 = summarize(prof.float32);
  r.float64 = summarize(prof.float64);
  return r;
}

ProbeReport computeProbe(const ExplorerRequest& req) {
  ProbeSettings s;
  s.target = req.probe.target;
  // Only what the user changed: passing every default would, e.g., set the target's gamma too.
  s.overrides = req.overrides;
  if (req.probe.familyOnly) s.families = {req.family};
  return runKernelProbe(s);
}

// As `poslab-cli diagnose`: the PJ-bias head's shape comes from the pj-bias parameters (the
// current ones when the family is pj-bias, else its defaults); its frequency is the target's.
DiagnosticsResult computeDiagnostics(const ExplorerRequest& req) {
  std::map<std::string, double> sets;
  if (req.family == "pj-bias") sets = req.overrides;
  auto enc = makeEncoding("pj-bias", sets);
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
  // Not at::set_num_threads(1): it also sets the default that threads started later (training
  // workers) take. OpenMP's own setter changes this thread only; torch's lazy per-thread init
  // runs first (get_num_threads), or it would undo ours at the first parallel op.
  (void)at::get_num_threads();
  using SetThreads = void (*)(int);
  if (auto fn = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"))) fn(1);
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
