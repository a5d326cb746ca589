#include "analysis/fixed_kernel_recovery.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/pj_adaptive.h"
#include "limits/work_budget.h"
#include "util/error.h"
#include "util/number_text.h"

namespace poslab {

namespace {
constexpr double kPi = 3.14159265358979323846;
constexpr double kStdFloor = 1e-8;         // standardize's clamp_min
constexpr double kSingularFloor = 1e-12;   // condition_number's clamp_min
constexpr double kR2Eps = 1e-12;           // r2_score's eps
constexpr double kRatioEps = 1e-12;        // extrapolation_ratio's eps
constexpr double kEnvelopeRate = 0.1;      // scaled jets: e^(-0.1 x)
constexpr long long kMaxLags = 1'000'000;  // T and L at most this many lags
constexpr size_t kMaxListValues = 16;      // omega cycles, evaluation lengths

using Columns = std::vector<std::vector<double>>;

// x^k cos(omega d), x^k sin(omega d) for k = 0..order, times e^(-0.1 x) when damped.
Columns trigOrders(double L, double omega, long long order, bool damped,
                   const std::vector<double>& lags) {
  Columns out;
  for (long long k = 0; k <= order; ++k) {
    std::vector<double> c(lags.size()), s(lags.size());
    for (size_t n = 0; n < lags.size(); ++n) {
      const double x = lags[n] / L;
      const double scale =
          std::pow(x, static_cast<double>(k)) * (damped ? std::exp(-kEnvelopeRate * x) : 1.0);
      c[n] = scale * std::cos(omega * lags[n]);
      s[n] = scale * std::sin(omega * lags[n]);
    }
    out.push_back(std::move(c));
    out.push_back(std::move(s));
  }
  return out;
}

// beta_L(d)^k cos(omega phi_L(d)), ... sin(...) for k = 0..order.
Columns lightCone(double L, double omega, long long order, const std::vector<double>& lags) {
  Columns out;
  for (long long k = 0; k <= order; ++k) {
    std::vector<double> c(lags.size()), s(lags.size());
    for (size_t n = 0; n < lags.size(); ++n) {
      const double d = lags[n];
      const double phi = L * std::asinh(d / L), beta = d / std::sqrt(d * d + L * L);
      const double scale = std::pow(beta, static_cast<double>(k));
      c[n] = scale * std::cos(omega * phi);
      s[n] = scale * std::sin(omega * phi);
    }
    out.push_back(std::move(c));
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<double> mapLags(const std::vector<double>& lags, double (*f)(double, double),
                            double L) {
  std::vector<double> out(lags.size());
  for (size_t n = 0; n < lags.size(); ++n) out[n] = f(lags[n], L);
  return out;
}
double linearX(double d, double L) {
  return d / L;
}
double asinhX(double d, double L) {
  return std::asinh(d / L);
}

// Parses "jordan_R2" etc.: the order after `prefix`, or -1.
long long orderAfter(const std::string& name, const std::string& prefix) {
  if (name.rfind(prefix, 0) != 0) return -1;
  const std::string rest = name.substr(prefix.size());
  if (rest.empty() || rest.size() > 2 || !std::all_of(rest.begin(), rest.end(), ::isdigit))
    return -1;
  return std::stoll(rest);
}

// (N, m) tensor of the columns, in `dtype`.
at::Tensor design(const Columns& columns, at::ScalarType dtype) {
  const auto n = static_cast<int64_t>(columns.front().size());
  at::Tensor x = at::empty({n, static_cast<int64_t>(columns.size())}, at::kDouble);
  auto a = x.accessor<double, 2>();
  for (size_t j = 0; j < columns.size(); ++j)
    for (int64_t i = 0; i < n; ++i) a[i][static_cast<int64_t>(j)] = columns[j][i];
  return x.to(dtype);
}

at::Tensor withIntercept(const at::Tensor& x) {
  return at::cat({x, at::ones({x.size(0), 1}, x.options())}, -1);
}

at::Tensor vectorOf(const std::vector<double>& v, at::ScalarType dtype) {
  return at::tensor(at::ArrayRef<double>(v), at::kDouble).to(dtype);
}

double meanSquare(const at::Tensor& pred, const at::Tensor& target) {
  return (pred - target).square().mean().item<double>();
}

double r2Score(const at::Tensor& pred, const at::Tensor& target) {
  const at::Tensor residual = (pred - target).square().sum();
  const at::Tensor total = (target - target.mean()).square().sum();
  return (1.0 - residual / (total + kR2Eps)).item<double>();
}

void requireRange(bool ok, const std::string& what, const std::string& range) {
  if (!ok) throw InvalidArgument(what + " is out of range", "give " + range);
}

std::vector<double> lagsUpTo(long long n) {
  std::vector<double> d(static_cast<size_t>(n));
  for (long long i = 0; i < n; ++i) d[static_cast<size_t>(i)] = static_cast<double>(i);
  return d;
}
}  // namespace

std::vector<std::string> fixedRecoveryBasisNames(long long maxOrder) {
  std::vector<std::string> names{"rope", "alibi", "alibi_lc", "rope_alibi"};
  for (long long r = 1; r <= maxOrder; ++r) {
    const std::string o = std::to_string(r);
    names.insert(names.end(), {"jordan_R" + o, "scaled_R" + o, "scaled_R" + o + "_affine"});
  }
  const std::string top = std::to_string(maxOrder);
  names.insert(names.end(), {"lc_R" + top, "lc_R" + top + "_affine"});
  return names;
}

Columns fixedRecoveryBasis(const std::string& basis, double L, double omega, long long maxOrder,
                           const std::vector<double>& lags) {
  if (basis == "rope") return trigOrders(L, omega, 0, false, lags);
  if (basis == "alibi") return {mapLags(lags, linearX, L)};
  if (basis == "alibi_lc") return {mapLags(lags, asinhX, L)};
  if (basis == "rope_alibi") {
    Columns c = trigOrders(L, omega, 0, false, lags);
    c.push_back(mapLags(lags, linearX, L));
    return c;
  }
  const std::string top = std::to_string(maxOrder);
  if (basis == "lc_R" + top) return lightCone(L, omega, maxOrder, lags);
  if (basis == "lc_R" + top + "_affine") {
    Columns c = lightCone(L, omega, maxOrder, lags);
    c.push_back(mapLags(lags, asinhX, L));
    return c;
  }
  for (long long r = 1; r <= maxOrder; ++r) {
    if (orderAfter(basis, "jordan_R") == r) return trigOrders(L, omega, r, false, lags);
    if (orderAfter(basis, "scaled_R") == r) return trigOrders(L, omega, r, true, lags);
    if (basis == "scaled_R" + std::to_string(r) + "_affine") {
      Columns c = trigOrders(L, omega, r, true, lags);
      c.push_back(mapLags(lags, linearX, L));
      return c;
    }
  }
  std::string list;
  for (const auto& n : fixedRecoveryBasisNames(maxOrder)) list += (list.empty() ? "" : ", ") + n;
  throw InvalidArgument("unknown fixed basis '" + basis + "'", "known: " + list);
}

void checkFixedRecoverySettings(const FixedRecoverySettings& s, size_t targetCount) {
  requireRange(s.trainLength >= 2 && s.trainLength <= kMaxLags,
               "train length " + std::to_string(s.trainLength), "2 .. 1,000,000");
  requireRange(!s.evalLengths.empty(), "evaluation lengths (none given)", "at least one length");
  for (long long t : s.evalLengths)
    requireRange(t >= 2 && t <= kMaxLags, "evaluation length " + std::to_string(t),
                 "2 .. 1,000,000");
  requireRange(!s.omegaCycles.empty(), "omega cycles (none given)", "at least one value");
  for (double c : s.omegaCycles)
    requireRange(std::isfinite(c) && c >= 0 && c <= static_cast<double>(s.trainLength) / 2,
                 "omega cycles " + formatNumber(c), "0 .. train length / 2");
  requireRange(s.maxOrder >= 1 && s.maxOrder <= 8, "max order " + std::to_string(s.maxOrder),
               "1 .. 8");
  requireRange(s.omegaCycles.size() <= kMaxListValues,
               std::to_string(s.omegaCycles.size()) + " omega cycles", "at most 16");
  requireRange(s.evalLengths.size() <= kMaxListValues,
               std::to_string(s.evalLengths.size()) + " evaluation lengths", "at most 16");
  // Every basis of every target is built at each lag of the fit and of each length: bounded by
  // the work budget of a request with progress (limits/work_budget.h) before anything is
  // allocated. poslab-cli checks the same estimate first, naming its options.
  checkWorkFits(fixedRecoveryCost(static_cast<long long>(targetCount),
                                  static_cast<long long>(s.omegaCycles.size()), s.trainLength,
                                  s.evalLengths, s.maxOrder),
                "the fixed kernel recovery of " + std::to_string(targetCount) + " targets at " +
                    std::to_string(s.omegaCycles.size()) + " frequencies",
                kProgressWorkBudget);
}

std::vector<FixedRecoveryRow> runFixedRecovery(
    const FixedRecoverySettings& s, const std::vector<std::string>& targets,
    const std::function<void(long long done, long long total)>& progress) {
  std::vector<std::string> names = targets;
  if (names.empty()) {
    names = pjAdaptiveTargetNames();
    names.pop_back();  // the reference's eight; `affine` is the sector teachers' extra
  }
  checkFixedRecoverySettings(s, names.size());
  for (const auto& t : names) pjAdaptiveTarget(t, 1, 0, {});  // names the unknown one
  const auto dtype = s.float64 ? at::kDouble : at::kFloat;
  const double L = static_cast<double>(s.trainLength);
  const std::vector<double> trainLags = lagsUpTo(s.trainLength);
  std::vector<FixedRecoveryRow> rows;
  const auto bases = static_cast<long long>(fixedRecoveryBasisNames(s.maxOrder).size());
  const long long total =
      static_cast<long long>(s.omegaCycles.size() * names.size()) * bases;  // progress units
  long long done = 0;
  for (double cycles : s.omegaCycles) {
    const double omega = 2.0 * kPi * cycles / L;
    for (const auto& target : names) {
      const at::Tensor yTrain = vectorOf(pjAdaptiveTarget(target, L, omega, trainLags), dtype);
      for (const auto& basis : fixedRecoveryBasisNames(s.maxOrder)) {
        // Standardize with the training lags' mean and (unbiased) std, floored at 1e-8.
        const at::Tensor raw =
            design(fixedRecoveryBasis(basis, L, omega, s.maxOrder, trainLags), dtype);
        const at::Tensor mean = raw.mean(0, true);
        const at::Tensor stdev =
            raw.std(0, /*unbiased=*/true, /*keepdim=*/true).clamp_min(kStdFloor);
        const at::Tensor trainDesign = withIntercept((raw - mean) / stdev);  // (L, m+1)
        const at::Tensor sv = at::linalg_svdvals(trainDesign.to(at::kDouble));
        const double cond = (sv.max() / sv.min().clamp_min(kSingularFloor)).item<double>();
        const at::Tensor w =
            std::get<0>(at::linalg_lstsq(trainDesign, yTrain.unsqueeze(1)));  // (m+1, 1)
        const double trainMse = meanSquare(at::matmul(trainDesign, w).squeeze(-1), yTrain);
        for (long long T : s.evalLengths) {
          const std::vector<double> evalLags = lagsUpTo(T);
          const at::Tensor yEval = vectorOf(pjAdaptiveTarget(target, L, omega, evalLags), dtype);
          const at::Tensor x =
              (design(fixedRecoveryBasis(basis, L, omega, s.maxOrder, evalLags), dtype) - mean) /
              stdev;
          const at::Tensor pred = at::matmul(withIntercept(x), w).squeeze(-1);
          rows.push_back({cycles, target, basis, T, trainMse, meanSquare(pred, yEval),
                          r2Score(pred, yEval), cond});
        }
        if (progress) progress(++done, total);
      }
    }
  }
  return rows;
}

double fixedRecoveryExactTolerance(bool float64) {
  return float64 ? 1e-12 : 1e-6;
}

std::vector<FixedRecoveryBest> bestFixedRecovery(const std::vector<FixedRecoveryRow>& rows,
                                                 double exactTolerance) {
  if (rows.empty()) return {};
  long long longest = rows.front().evalLength, shortest = longest;
  for (const auto& r : rows) {
    longest = std::max(longest, r.evalLength);
    shortest = std::min(shortest, r.evalLength);
  }
  std::vector<FixedRecoveryBest> out;
  std::map<std::pair<double, std::string>, size_t> where;  // (cycles, target) -> index in out
  for (const auto& r : rows) {
    if (r.evalLength != longest) continue;
    const auto key = std::make_pair(r.omegaCycles, r.target);
    auto it = where.find(key);
    if (it == where.end())
      it = where.emplace(key, out.size()).first, out.push_back({r, 0, {}});
    else if (r.mse < out[it->second].row.mse)  // the first of equal MSEs, as min() keeps
      out[it->second].row = r;
    if (1 - r.r2 <= exactTolerance) out[it->second].exactFits.push_back(r.basis);
  }
  // The reference prints each frequency's targets sorted by name (frequencies in their order).
  for (size_t begin = 0; begin < out.size();) {
    size_t end = begin;
    while (end < out.size() && out[end].row.omegaCycles == out[begin].row.omegaCycles) ++end;
    std::sort(out.begin() + static_cast<long>(begin), out.begin() + static_cast<long>(end),
              [](const auto& a, const auto& b) { return a.row.target < b.row.target; });
    begin = end;
  }
  for (auto& b : out)
    for (const auto& r : rows)
      if (r.omegaCycles == b.row.omegaCycles && r.target == b.row.target &&
          r.basis == b.row.basis && r.evalLength == shortest) {
        b.extrapolationRatio = b.row.mse / (r.mse + kRatioEps);
        break;
      }
  return out;
}

}  // namespace poslab
