#include "analysis/pj_diagnostics.h"

#include <ATen/ATen.h>

#include <cmath>
#include <limits>

#include "analysis/least_squares.h"
#include "encodings/pj_bias.h"
#include "util/error.h"

namespace poslab {

namespace {
double norm2(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

// Condition number of the columns scaled to unit norm (a zero column: infinite).
double scaledConditionNumber(const std::vector<std::vector<double>>& columns) {
  if (columns.empty()) return 1;
  const auto n = static_cast<int64_t>(columns.front().size());
  const auto m = static_cast<int64_t>(columns.size());
  at::Tensor x = at::empty({n, m}, at::kDouble);
  auto a = x.accessor<double, 2>();
  for (int64_t j = 0; j < m; ++j) {
    const double norm = norm2(columns[static_cast<size_t>(j)]);
    if (!(norm > 0)) return std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < n; ++i) a[i][j] = columns[static_cast<size_t>(j)][i] / norm;
  }
  const at::Tensor sv = at::linalg_svdvals(x);
  const double smallest = sv.min().item<double>();
  return smallest > 0 ? sv.max().item<double>() / smallest
                      : std::numeric_limits<double>::infinity();
}
}  // namespace

PjDiagnostics pjDiagnoseHead(const PjShape& shape, const PjHead& head,
                             const std::vector<double>& lags, const std::vector<double>& target) {
  if (!target.empty() && target.size() != lags.size())
    throw InvalidArgument("target and lags differ in length");
  struct Comp {
    PjSector sector;
    long long order;
    double mass;
  };
  std::vector<Comp> comps;
  for (long long r = 0; r <= shape.order; ++r)
    comps.push_back(
        {PjSector::FJ, r,
         head.gates[0] * head.alphaFj[r] * std::hypot(head.zetaFjRe[r], head.zetaFjIm[r])});
  comps.push_back({PjSector::Affine, 0, head.gates[1] * std::abs(head.slope)});
  for (long long r = 0; r <= shape.order; ++r)
    comps.push_back(
        {PjSector::LC, r,
         head.gates[2] * head.alphaLc[r] * std::hypot(head.zetaLcRe[r], head.zetaLcIm[r])});

  std::vector<std::vector<double>> values(comps.size(), std::vector<double>(lags.size()));
  std::vector<double> kernel(lags.size(), 0.0);
  for (size_t c = 0; c < comps.size(); ++c)
    for (size_t n = 0; n < lags.size(); ++n) {
      values[c][n] = pjComponent(shape, head, comps[c].sector, comps[c].order, lags[n]);
      kernel[n] += values[c][n];
    }
  const double kernelNorm = norm2(kernel);
  // The share is over the FJ and LC masses (g alpha |zeta| per order); the affine sector has no
  // orders and its mass g_aff |slope| is a different quantity, reported beside them (MATH 4.2.1).
  double massSum = 0;
  for (const auto& c : comps)
    if (c.sector != PjSector::Affine) massSum += c.mass;
  const double nan = std::numeric_limits<double>::quiet_NaN();

  PjDiagnostics out;
  out.kernelMse = target.empty() ? nan : meanSquaredError(kernel, target);
  for (size_t c = 0; c < comps.size(); ++c) {
    PjComponentDiagnostic row;
    row.sector = pjSectorName(comps[c].sector);
    row.order = comps[c].order;
    row.mass = comps[c].mass;
    row.massShare = comps[c].sector == PjSector::Affine ? nan
                    : massSum > 0                       ? comps[c].mass / massSum
                                                        : 0.0;
    row.energy = kernelNorm > 0 ? norm2(values[c]) / kernelNorm : 0.0;
    if (target.empty()) {
      row.loo = nan;
    } else {
      std::vector<double> without(kernel);
      for (size_t n = 0; n < lags.size(); ++n) without[n] -= values[c][n];
      row.loo = meanSquaredError(without, target) - out.kernelMse;
    }
    out.rows.push_back(row);
  }
  return out;
}

PjFit pjFitAndDiagnose(const PjShape& shape, double omega, double kappa,
                       const std::vector<double>& lags, const std::vector<double>& target) {
  LagBasis basis = pjBasis(shape, omega, kappa, lags);
  LeastSquaresFit fit = leastSquares(basis.columns, target);
  const long long R = shape.order;
  // Column layout of pjBasis: FJ r cos/sin (2(R+1)), affine, LC r cos/sin (2(R+1)).
  PjFit out;
  PjHead& h = out.head;
  h.omega = omega;
  h.kappa = kappa;
  // Gates and alpha are folded into zeta: g = 1 per sector, alpha = 1, zeta = c_cos - i c_sin
  // (so that alpha Re(zeta e^(i w d)) = c_cos cos(w d) + c_sin sin(w d)).
  h.gates[0] = h.gates[1] = h.gates[2] = 1.0;
  h.alphaFj.assign(R + 1, 1.0);
  h.alphaLc.assign(R + 1, 1.0);
  for (long long r = 0; r <= R; ++r) {
    h.zetaFjRe.push_back(fit.coefficients[2 * r]);
    h.zetaFjIm.push_back(-fit.coefficients[2 * r + 1]);
    const size_t lc = 2 * (R + 1) + 1 + 2 * r;
    h.zetaLcRe.push_back(fit.coefficients[lc]);
    h.zetaLcIm.push_back(-fit.coefficients[lc + 1]);
  }
  h.slope = fit.coefficients[2 * (R + 1)];  // Aff = -slope rho, and the column is -rho
  out.diagnostics = pjDiagnoseHead(shape, h, lags, target);
  out.conditionNumber = scaledConditionNumber(basis.columns);
  return out;
}

PjTargetFit fitPjToTarget(const std::string& target, const ParamSet& pjParams,
                          const LagKernelParams& targetParams, bool frequencyFromTarget) {
  checkLagKernelName(target);
  PjTargetFit out;
  out.target = target;
  const double L = pjParams.get("L");
  for (long long d = 1; d < static_cast<long long>(L); ++d)
    out.lags.push_back(static_cast<double>(d));
  if (out.lags.empty())
    throw InvalidArgument("L = " + std::to_string(L) + " leaves no lags to fit");
  out.values = lagKernel(target, targetParams, out.lags);
  out.omega = frequencyFromTarget ? targetParams.omega
                                  : pjHeadsFromParams(pjParams)[pjParams.getInt("head") - 1].omega;
  out.fit = pjFitAndDiagnose(pjShapeFromParams(pjParams), out.omega, pjParams.get("kappa"),
                             out.lags, out.values);
  return out;
}

}  // namespace poslab
