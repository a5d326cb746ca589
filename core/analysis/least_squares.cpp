#include "analysis/least_squares.h"

#include <cmath>

#include "util/error.h"

namespace poslab {

namespace {
double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}
}  // namespace

double meanSquaredError(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.empty()) throw InvalidArgument("MSE of vectors of different sizes");
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return s / static_cast<double>(a.size());
}

LeastSquaresFit leastSquares(const std::vector<std::vector<double>>& columns,
                             const std::vector<double>& target) {
  const size_t n = target.size();
  const size_t m = columns.size();
  for (const auto& c : columns)
    if (c.size() != n) throw InvalidArgument("basis column length differs from the target's");
  // Q: orthonormal columns; R: upper-triangular coefficients of each kept column on Q.
  std::vector<std::vector<double>> Q;
  std::vector<size_t> kept;
  std::vector<std::vector<double>> R;  // R[col][k] for k < Q.size() at the time it was kept
  for (size_t j = 0; j < m; ++j) {
    std::vector<double> v = columns[j];
    const double norm0 = std::sqrt(dot(v, v));
    if (!std::isfinite(norm0)) throw InvalidArgument("a basis column is not finite");
    std::vector<double> r(Q.size(), 0.0);
    for (int pass = 0; pass < 2; ++pass) {  // twice is enough (Kahan-Parlett)
      for (size_t k = 0; k < Q.size(); ++k) {
        const double c = dot(Q[k], v);
        r[k] += c;
        for (size_t i = 0; i < n; ++i) v[i] -= c * Q[k][i];
      }
    }
    const double norm = std::sqrt(dot(v, v));
    if (norm0 == 0 || norm <= 1e-10 * norm0) continue;
    for (auto& x : v) x /= norm;
    r.push_back(norm);
    Q.push_back(std::move(v));
    kept.push_back(j);
    R.push_back(std::move(r));
  }
  // Projection of the target and its coordinates on Q.
  std::vector<double> y(Q.size());
  LeastSquaresFit fit;
  fit.fitted.assign(n, 0.0);
  for (size_t k = 0; k < Q.size(); ++k) {
    y[k] = dot(Q[k], target);
    for (size_t i = 0; i < n; ++i) fit.fitted[i] += y[k] * Q[k][i];
  }
  // Back-substitute R c = y over the kept columns.
  const size_t K = Q.size();
  std::vector<double> c(K, 0.0);
  for (size_t a = K; a-- > 0;) {
    double s = y[a];
    for (size_t b = a + 1; b < K; ++b) s -= R[b][a] * c[b];
    c[a] = s / R[a][a];
  }
  fit.coefficients.assign(m, 0.0);
  for (size_t a = 0; a < K; ++a) fit.coefficients[kept[a]] = c[a];
  fit.mse = meanSquaredError(fit.fitted, target);
  fit.rank = static_cast<long long>(K);
  return fit;
}

LeastSquaresFit ridgeLeastSquares(const std::vector<std::vector<double>>& columns,
                                  const std::vector<double>& target, double ridge) {
  if (!(ridge > 0) || !std::isfinite(ridge))
    throw InvalidArgument("ridge = " + std::to_string(ridge) + " is not a positive number");
  const size_t n = target.size();
  const size_t m = columns.size();
  const double root = std::sqrt(ridge);
  std::vector<std::vector<double>> augmented(columns);
  for (size_t j = 0; j < m; ++j) {
    if (augmented[j].size() != n)
      throw InvalidArgument("basis column length differs from the target's");
    augmented[j].resize(n + m, 0.0);
    augmented[j][n + j] = root;
  }
  std::vector<double> y(target);
  y.resize(n + m, 0.0);
  LeastSquaresFit fit = leastSquares(augmented, y);
  fit.fitted.assign(n, 0.0);
  for (size_t j = 0; j < m; ++j)
    for (size_t i = 0; i < n; ++i) fit.fitted[i] += fit.coefficients[j] * columns[j][i];
  fit.mse = n == 0 ? 0.0 : meanSquaredError(fit.fitted, target);
  return fit;
}

}  // namespace poslab
