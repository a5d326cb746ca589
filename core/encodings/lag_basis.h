// The kernel view of a family: named functions of the lag d, evaluated in float64.
#pragma once

#include <string>
#include <vector>

namespace poslab {

struct LagBasis {
  std::vector<double> lags;                  // the lags d the columns are evaluated at
  std::vector<std::string> names;            // one name per basis function, e.g. "d*exp*cos"
  std::vector<std::vector<double>> columns;  // columns[n][t] = f_n(lags[t])
  // The whole kernel K(d) where the family's coefficients fix one (unit content for rotary
  // families, the bias for additive ones); empty otherwise.
  std::vector<double> kernel;

  void add(std::string name, std::vector<double> column) {
    names.push_back(std::move(name));
    columns.push_back(std::move(column));
  }
};

// Integer lags first..last-1 as doubles; throws InvalidArgument if the range is empty or negative.
std::vector<double> lagRange(long long first, long long last);

}  // namespace poslab
