// Least-squares projection onto a set of basis columns, float64, robust to collinear columns, and
// the ridge-regularised fit of the kernel probe.
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

// Ridge regression: min_c || X c - target ||^2 + ridge || c ||^2, i.e. the solution of
// (X^T X + ridge I) c = X^T target (the Jordan-RoPE reference's fit_ridge), computed stably as
// the least-squares fit of the augmented system [X; sqrt(ridge) I] c = [target; 0]. ridge > 0
// keeps every column (rank = number of columns); fitted and mse are over the target's rows only.
// Throws InvalidArgument for ridge <= 0 or not finite.
LeastSquaresFit ridgeLeastSquares(const std::vector<std::vector<double>>& columns,
                                  const std::vector<double>& target, double ridge);

double meanSquaredError(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace poslab
