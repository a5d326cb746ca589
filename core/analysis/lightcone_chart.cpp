#include "analysis/lightcone_chart.h"

#include <cmath>
#include <string>

#include "util/error.h"

namespace poslab {

void checkLightConeChart(const LightConeChart& c) {
  if (!(c.L > 0) || !std::isfinite(c.L))
    throw InvalidArgument("light-cone chart: L = " + std::to_string(c.L) + " must be positive");
  if (c.order < 1 || c.order > 16)
    throw InvalidArgument("light-cone chart: order " + std::to_string(c.order) +
                          " is not in 1..16");
  if (c.headDim < 2 || c.headDim % (2 * c.order) != 0)
    throw InvalidArgument("light-cone chart: head_dim " + std::to_string(c.headDim) +
                          " is not divisible by " + std::to_string(2 * c.order));
  if (!std::isfinite(c.eta)) throw InvalidArgument("light-cone chart: eta is not finite");
  if (!(c.base > 1)) throw InvalidArgument("light-cone chart: base must exceed 1");
}

std::vector<double> lightConeTransform(const LightConeChart& c, const std::vector<double>& x,
                                       double p, bool query) {
  checkLightConeChart(c);
  if (static_cast<long long>(x.size()) != c.headDim)
    throw InvalidArgument("light-cone chart: the vector has " + std::to_string(x.size()) +
                          " entries, not head_dim " + std::to_string(c.headDim));
  const long long m = c.order, blocks = c.headDim / (2 * m);
  const double phi = c.L * std::asinh(p / c.L), beta = p / std::sqrt(p * p + c.L * c.L);
  const double u = (query ? 1.0 : -1.0) * c.eta * beta;
  std::vector<double> out(x.size(), 0.0);
  for (long long b = 0; b < blocks; ++b) {
    const double w =
        std::pow(c.base, -2.0 * static_cast<double>(b) / static_cast<double>(c.headDim));
    const double cs = std::cos(w * phi), sn = -std::sin(w * phi);  // e^(-i w phi)
    const long long off = 2 * m * b;
    for (long long l = 0; l < m; ++l) {
      // query: exp(uN)^H q, (l) <- sum_r u^r/r! q_(l-r); key: exp(-uN) k, (l) <- (-u)^r/r! k_(l+r)
      double re = 0, im = 0, coef = 1;
      for (long long r = 0; r < m; ++r) {
        if (r > 0) coef *= u / static_cast<double>(r);
        const long long src = query ? l - r : l + r;
        if (src < 0 || src >= m) continue;
        re += coef * x[off + 2 * src];
        im += coef * x[off + 2 * src + 1];
      }
      out[off + 2 * l] = re * cs - im * sn;
      out[off + 2 * l + 1] = re * sn + im * cs;
    }
  }
  return out;
}

double lightConeLogNormGain(const LightConeChart& c, const std::vector<double>& x, double p,
                            bool query) {
  const std::vector<double> y = lightConeTransform(c, x, p, query);
  double a = 0, b = 0;
  for (size_t n = 0; n < x.size(); ++n) {
    a += y[n] * y[n];
    b += x[n] * x[n];
  }
  if (b == 0) return 0.0;
  return std::log(a) - std::log(b);
}

double lightConeNormBound(const LightConeChart& c) {
  checkLightConeChart(c);
  double s = 0, term = 1;
  for (long long r = 0; r < c.order; ++r) {
    if (r > 0) term *= std::abs(c.eta) / static_cast<double>(r);
    s += term;
  }
  return s;
}

}  // namespace poslab
