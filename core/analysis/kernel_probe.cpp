#include "analysis/kernel_probe.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include "analysis/least_squares.h"
#include "encodings/registry.h"
#include "tasks/lag_kernels.h"
#include "util/error.h"
#include "util/number_text.h"

namespace poslab {

namespace {
// configs/full_research.yaml, toy block.
constexpr double kDefaultL = 1024;                  // toy.train_context
constexpr double kDefaultHeadDim = 64;              // toy.head_dim
constexpr double kDefaultRidge = 1e-4;              // toy.ridge
constexpr long long kEvalFactors[] = {1, 2, 4, 8};  // toy.eval_contexts / train_context
// A column whose normalised values are within this of a kept column's (or its negative) is the
// same function (ALiBi's per-head ramps, the constant in a family's own basis, a family's
// frequency-free columns repeated at every channel) and is fitted once.
constexpr double kSameColumn = 1e-12;

const std::vector<std::string>& toyTargets() {
  static const std::vector<std::string> names{"phase", "linear", "mixed"};
  return names;
}

double overrideOr(const std::map<std::string, double>& o, const std::string& name,
                  double fallback) {
  auto it = o.find(name);
  return it == o.end() ? fallback : it->second;
}

// Columns with distinct shapes, each normalised copy kept beside the original for comparison.
class DistinctColumns {
 public:
  void add(const std::vector<double>& column) {
    double norm = 0;
    for (double v : column) norm += v * v;
    norm = std::sqrt(norm);
    if (norm == 0) return;  // fits nothing
    if (!std::isfinite(norm)) throw InvalidArgument("a probe basis column is not finite");
    std::vector<double> unit(column);
    for (double& v : unit) v /= norm;
    for (const auto& kept : units_)
      if (same(kept, unit)) return;
    units_.push_back(std::move(unit));
    columns_.push_back(column);
  }
  const std::vector<std::vector<double>>& columns() const { return columns_; }

 private:
  static bool same(const std::vector<double>& a, const std::vector<double>& b) {
    bool plus = true, minus = true;
    for (size_t i = 0; i < a.size() && (plus || minus); ++i) {
      plus = plus && std::abs(a[i] - b[i]) <= kSameColumn;
      minus = minus && std::abs(a[i] + b[i]) <= kSameColumn;
    }
    return plus || minus;
  }
  std::vector<std::vector<double>> units_, columns_;
};

// The Jordan-RoPE reference's toy features carry a shear time t as (t/L)^r / r!. PosLab's Jordan
// block bases (appendJordanBlockBasis, core/encodings/jordan_blocks.h) name a column with the time
// "d", "tau" or "d/L" to the power r as "T*..." (r = 1) or "(T)^r*..." (r > 1), with t in
// positions for "d" and "tau" and in units of L for "d/L". The factor that turns such a column
// into the reference's scale, so that the ridge penalises it as the reference does; 1 for every
// other column.
double referenceJetScale(const std::string& name, double L) {
  std::string time;
  int power = 0;
  for (const char* t : {"d/L", "tau", "d"}) {
    const std::string one = std::string(t) + "*", open = "(" + std::string(t) + ")^";
    if (name.rfind(one, 0) == 0) {
      time = t;
      power = 1;
      break;
    }
    if (name.rfind(open, 0) == 0) {
      time = t;
      power = std::atoi(name.c_str() + open.size());
      break;
    }
  }
  double scale = 1;
  for (int k = 1; k <= power; ++k) scale /= k * (time == "d/L" ? 1.0 : L);
  return scale;
}

std::vector<double> firstRows(const std::vector<double>& v, long long n) {
  return std::vector<double>(v.begin(), v.begin() + n);
}
}  // namespace

std::vector<std::string> probeTargetNames() {
  std::vector<std::string> names = toyTargets();
  for (const auto& n : lagKernelNames()) names.push_back(n);
  return names;
}

std::vector<double> probeTarget(const std::string& name, double L, double omega,
                                const std::vector<double>& lags,
                                const std::map<std::string, double>& o) {
  if (std::find(toyTargets().begin(), toyTargets().end(), name) == toyTargets().end()) {
    checkLagKernelName(name);
    LagKernelParams tp =
        defaultLagKernelParams(static_cast<long long>(overrideOr(o, "head_dim", kDefaultHeadDim)),
                               overrideOr(o, "base", 10000), L);
    tp.omega = omega;
    tp.omega2 = overrideOr(o, "omega2", tp.omega2);
    tp.gamma = overrideOr(o, "gamma", tp.gamma);
    return lagKernel(name, tp, lags);
  }
  std::vector<double> k(lags.size());
  for (size_t n = 0; n < lags.size(); ++n) {
    const double d = lags[n], x = d / L;
    if (name == "phase") k[n] = std::cos(omega * d);
    if (name == "linear") k[n] = -x;
    if (name == "mixed") k[n] = x * std::cos(omega * d);
  }
  return k;
}

std::vector<std::string> defaultProbeFamilies() {
  return {"rope", "alibi", "direct-sum", "damped-rope", "jordan-stabilized", "jordan-exact"};
}

ProbeSize probeSize(const ProbeSettings& settings) {
  const auto finiteOr = [&](const char* name, double fallback) {
    const double v = overrideOr(settings.overrides, name, fallback);
    return std::isfinite(v) ? v : fallback;
  };
  const double headDim = finiteOr("head_dim", kDefaultHeadDim);
  ProbeSize size;
  size.families = static_cast<long long>(settings.families.empty() ? defaultProbeFamilies().size()
                                                                   : settings.families.size());
  size.channels = static_cast<long long>(std::clamp(finiteOr("channels", headDim / 4), 1.0, 512.0));
  size.trainLength = static_cast<long long>(std::clamp(finiteOr("L", kDefaultL), 2.0, 1e6));
  return size;
}

namespace {
// A value as the user gave it: integers in full ("L = 1000001", not "1e+06").
std::string exactNumber(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
    return std::to_string(static_cast<long long>(v));
  return formatNumber(v);
}

// Family `info`'s parameters in the probe: the overrides it has (not omega: the probe sets each
// channel's), its L and head_dim the probe's unless L is overridden; `hasOmega` whether it has one.
std::map<std::string, double> probeFamilyParams(const FamilyInfo& info,
                                                const std::map<std::string, double>& o, double L,
                                                double headDim, bool* hasOmega) {
  std::map<std::string, double> mine;
  *hasOmega = false;
  for (const auto& spec : info.params) {
    *hasOmega = *hasOmega || spec.name == "omega";
    auto it = o.find(spec.name);
    if (it != o.end() && spec.name != "omega") mine[spec.name] = it->second;
  }
  for (const auto& spec : info.params) {  // the probe's window and head, unless overridden
    if (spec.name == "L" && !mine.count("L")) mine["L"] = L;
    if (spec.name == "head_dim") mine["head_dim"] = headDim;
  }
  return mine;
}

// Builds family `id` with `params` (omega at `w` when it has one), naming the family in an error:
// the probe builds several.
std::unique_ptr<Encoding> probeEncoding(const std::string& id, std::map<std::string, double> params,
                                        bool hasOmega, double w, double headDim) {
  if (hasOmega) params["omega"] = w;
  try {
    return makeEncoding(id, params);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument("probe of " + id + " (head_dim " +
                          std::to_string(static_cast<long long>(headDim)) + "): " + e.what());
  }
}
}  // namespace

void checkProbeSettings(const ProbeSettings& settings) {
  const auto& o = settings.overrides;
  const auto known = probeTargetNames();
  if (std::find(known.begin(), known.end(), settings.target) == known.end()) {
    std::string list;
    for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
    throw InvalidArgument("unknown target kernel '" + settings.target + "'", "known: " + list);
  }
  for (const auto& [name, value] : o)
    if (!std::isfinite(value)) throw InvalidArgument(name + " is not finite");
  const double L = overrideOr(o, "L", kDefaultL);
  if (!(L >= 2) || L > 1'000'000 || L != std::floor(L)) {
    throw InvalidArgument("L = " + exactNumber(L) + " is out of range for the probe",
                          "the probe fits d in [0, L) and evaluates to 8L: give an integer "
                          "2 <= L <= 1,000,000");
  }
  const double headDim = overrideOr(o, "head_dim", kDefaultHeadDim);
  if (!(headDim >= 2) || headDim > 1024 || headDim != std::floor(headDim))
    throw InvalidArgument("head_dim = " + exactNumber(headDim) + " is not an integer in 2..1024");
  const double base = overrideOr(o, "base", 10000);
  if (!(base > 1)) throw InvalidArgument("base = " + exactNumber(base) + " must exceed 1");
  const double channels = overrideOr(o, "channels", std::floor(headDim / 4));
  if (!(channels >= 1) || channels > headDim / 2 || channels != std::floor(channels)) {
    throw InvalidArgument("channels = " + exactNumber(channels) + " is out of range",
                          "give an integer from 1 to head_dim/2 (the rotary pairs of the head)");
  }
  const double ridge = overrideOr(o, "ridge", kDefaultRidge);
  if (!(ridge > 0) || ridge > 1e6)
    throw InvalidArgument("ridge = " + exactNumber(ridge) + " is not in (0, 1e6]");
  // Every family builds with these settings, before any work (a family that cannot failed after
  // seconds of the others' fits).
  const auto families = settings.families.empty() ? defaultProbeFamilies() : settings.families;
  for (const auto& id : families) {
    bool hasOmega = false;
    const auto params = probeFamilyParams(familyInfo(id), o, L, headDim, &hasOmega);
    probeEncoding(id, params, hasOmega, 1.0, headDim);
  }
}

ProbeReport runKernelProbe(const ProbeSettings& settings) {
  checkProbeSettings(settings);
  const auto& o = settings.overrides;
  const double L = overrideOr(o, "L", kDefaultL);
  const double headDim = overrideOr(o, "head_dim", kDefaultHeadDim);
  const double base = overrideOr(o, "base", 10000);
  const double channels = overrideOr(o, "channels", std::floor(headDim / 4));
  const double ridge = overrideOr(o, "ridge", kDefaultRidge);

  ProbeReport report;
  report.target = settings.target;
  report.trainLength = static_cast<long long>(L);
  for (long long f : kEvalFactors) report.evalLengths.push_back(f * report.trainLength);
  report.channels = static_cast<long long>(channels);
  report.ridge = ridge;
  report.omega = overrideOr(o, "omega", std::pow(base, -6.0 / headDim));
  const long long longest = report.evalLengths.back();
  for (long long d = 0; d < longest; ++d) report.lags.push_back(static_cast<double>(d));
  report.targetValues = probeTarget(settings.target, L, report.omega, report.lags, o);
  const std::vector<double> trainTarget = firstRows(report.targetValues, report.trainLength);

  std::vector<double> channelOmega;
  for (long long c = 0; c < report.channels; ++c)
    channelOmega.push_back(std::pow(base, -2.0 * static_cast<double>(c) / headDim));

  const auto families = settings.families.empty() ? defaultProbeFamilies() : settings.families;
  std::set<std::string> used = {"L",    "omega",    "omega2",   "gamma",
                                "base", "head_dim", "channels", "ridge"};
  for (const auto& id : families) {
    const FamilyInfo& info = familyInfo(id);
    for (const auto& spec : info.params) used.insert(spec.name);
    bool hasOmega = false;
    const auto mine = probeFamilyParams(info, o, L, headDim, &hasOmega);
    DistinctColumns basis;
    basis.add(std::vector<double>(report.lags.size(), 1.0));
    for (double w : channelOmega) {
      const std::unique_ptr<Encoding> enc = probeEncoding(id, mine, hasOmega, w, headDim);
      const LagBasis b = enc->probeBasis(report.lags, w);
      for (size_t j = 0; j < b.columns.size(); ++j) {
        std::vector<double> column = b.columns[j];
        const double scale = referenceJetScale(b.names[j], L);
        for (double& v : column) v *= scale;
        basis.add(column);
      }
    }
    std::vector<std::vector<double>> train;
    for (const auto& column : basis.columns())
      train.push_back(firstRows(column, report.trainLength));
    const LeastSquaresFit fit = ridgeLeastSquares(train, trainTarget, ridge);
    ProbeFamilyResult r;
    r.family = id;
    r.basisSize = static_cast<long long>(basis.columns().size());
    r.fitted.assign(report.lags.size(), 0.0);
    for (size_t j = 0; j < basis.columns().size(); ++j)
      for (size_t n = 0; n < report.lags.size(); ++n)
        r.fitted[n] += fit.coefficients[j] * basis.columns()[j][n];
    for (long long n : report.evalLengths)
      r.mseByLength.push_back(
          meanSquaredError(firstRows(r.fitted, n), firstRows(report.targetValues, n)));
    r.mseInWindow = r.mseByLength.front();
    r.mseExtrapolated = r.mseByLength.back();
    report.results.push_back(std::move(r));
  }
  for (const auto& [name, value] : o) {
    if (!used.count(name)) {
      throw InvalidArgument("parameter '" + name +
                            "' is used by no probed family and not by the target");
    }
  }
  std::stable_sort(report.results.begin(), report.results.end(), [](const auto& a, const auto& b) {
    return a.mseExtrapolated < b.mseExtrapolated;
  });
  return report;
}

}  // namespace poslab
