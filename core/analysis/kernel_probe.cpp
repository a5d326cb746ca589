#include "analysis/kernel_probe.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "analysis/least_squares.h"
#include "encodings/registry.h"
#include "tasks/lag_kernels.h"
#include "util/error.h"

namespace poslab {

std::vector<std::string> defaultProbeFamilies() {
  return {"rope", "alibi", "direct-sum", "damped-rope", "jordan-stabilized", "jordan-exact"};
}

namespace {
double overrideOr(const std::map<std::string, double>& o, const std::string& name,
                  double fallback) {
  auto it = o.find(name);
  return it == o.end() ? fallback : it->second;
}
}  // namespace

ProbeReport runKernelProbe(const ProbeSettings& settings) {
  checkLagKernelName(settings.target);
  const auto& o = settings.overrides;
  const double L = overrideOr(o, "L", 256);
  if (!(L >= 2) || !std::isfinite(L) || L > 1e7) {
    throw InvalidArgument("L = " + std::to_string(L) + " is out of range for the probe",
                          "the probe fits d in [1, L): give 2 <= L <= 1e7");
  }
  const double headDim = overrideOr(o, "head_dim", 16);
  const double base = overrideOr(o, "base", 10000);
  LagKernelParams tp = defaultLagKernelParams(static_cast<long long>(headDim), base, L);
  tp.omega = overrideOr(o, "omega", tp.omega);
  tp.omega2 = overrideOr(o, "omega2", tp.omega2);
  tp.gamma = overrideOr(o, "gamma", tp.gamma);
  for (const char* name : {"omega", "omega2", "gamma"}) {
    if (o.count(name) && !std::isfinite(o.at(name)))
      throw InvalidArgument(std::string(name) + " is not finite");
  }

  ProbeReport report;
  report.target = settings.target;
  for (long long d = 1; d < static_cast<long long>(std::ceil(L)); ++d)
    report.lags.push_back(static_cast<double>(d));
  report.targetValues = lagKernel(settings.target, tp, report.lags);

  const auto families = settings.families.empty() ? defaultProbeFamilies() : settings.families;
  std::set<std::string> used = {"L", "omega", "omega2", "gamma", "base", "head_dim"};
  for (const auto& id : families) {
    const FamilyInfo& info = familyInfo(id);
    std::map<std::string, double> mine;
    for (const auto& spec : info.params) {
      auto it = o.find(spec.name);
      if (it != o.end()) mine[spec.name] = it->second;
      used.insert(spec.name);
    }
    // The family looks at the target's frequency unless the user pinned another.
    for (const auto& spec : info.params)
      if (spec.name == "omega" && !mine.count("omega")) mine["omega"] = tp.omega;
    auto enc = makeEncoding(id, mine);
    LagBasis basis = enc->probeBasis(report.lags, tp.omega);
    LeastSquaresFit fit = leastSquares(basis.columns, report.targetValues);
    report.results.push_back({id, fit.mse, static_cast<long long>(basis.columns.size()), fit.rank,
                              std::move(fit.fitted)});
  }
  for (const auto& [name, value] : o) {
    if (!used.count(name)) {
      throw InvalidArgument("parameter '" + name +
                            "' is used by no probed family and not by the "
                            "target");
    }
  }
  std::stable_sort(report.results.begin(), report.results.end(),
                   [](const auto& a, const auto& b) { return a.mse < b.mse; });
  return report;
}

}  // namespace poslab
