// Least-squares projection onto a set of basis columns, float64, robust to collinear columns.
#pragma once

#include <vector>

namespace poslab {

struct LeastSquaresFit {
  std::vector<double> coefficients;  // one per input column (0 for dropped dependent columns)
  std::vector<double> fitted;        // sum_n coefficients[n] * columns[n]
  double mse = 0;                    // mean (fitted - target)^2
  long long rank = 0;                // independent columns used
};

// min_c || sum_n c_n columns[n] - target ||^2 by modified Gram-Schmidt with re-orthogonalisation;
// a column whose remainder is below 1e-10 of its norm is treated as dependent (coefficient 0).
LeastSquaresFit leastSquares(const std::vector<std::vector<double>>& columns,
                             const std::vector<double>& target);

double meanSquaredError(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace poslab
