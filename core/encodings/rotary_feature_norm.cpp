// How the contragredient transform of a rotary (Jordan-block) family changes a feature vector's
// norm with position (MATH 1.7): the query side decays as e^(-gamma p) and shears forward, the key
// side grows as e^(gamma p) and shears backward.
#include <algorithm>
#include <cmath>

#include "encodings/rotary_encoding.h"

namespace poslab {

namespace {
double logSumExp(const std::vector<double>& v) {
  double m = -INFINITY;
  for (double x : v) m = std::max(m, x);
  if (!std::isfinite(m)) return m;
  double s = 0;
  for (double x : v) s += std::exp(x - m);
  return m + std::log(s);
}

// log ||x'(p)||^2 of the transform, block by block in log space.
double rotaryLogNormSq(const JordanLayout& layout, const std::vector<double>& x, double p,
                       bool query) {
  std::vector<double> terms;
  std::vector<bool> covered(x.size(), false);
  for (const auto& g : layout.groups) {
    auto gamma = g.gamma.accessor<double, 1>();
    auto shear = g.shear.accessor<double, 1>();
    const double t = g.kind == ShearKind::AbsoluteSaturating ? p / (1.0 + p / g.L) : p;
    for (long long b = 0; b < g.blocks; ++b) {
      const long long off = g.offset + 2 * g.order * b;
      const double s = (query ? 1.0 : -1.0) * shear[b] * t;
      // Coefficient of power r: s^r / r!, or the jet mix's a_r (keys) and b_r (queries).
      std::vector<double> coefs;
      if (g.jet.defined()) {
        std::vector<double> c;
        for (long long r = 0; r < g.order; ++r) c.push_back(g.jet[r][b].item<double>());
        coefs = jetCoefficients(c, shear[b] * t);
        if (query) coefs = jetInverse(coefs);
      } else {
        double coef = 1;
        for (long long r = 0; r < g.order; ++r) {
          if (r > 0) coef *= s / static_cast<double>(r);
          coefs.push_back(coef);
        }
      }
      double sq = 0;
      for (long long l = 0; l < g.order; ++l) {
        double re = 0, im = 0;
        for (long long r = 0; r < g.order; ++r) {
          const long long src = query ? l - r : l + r;
          if (src < 0 || src >= g.order) continue;
          re += coefs[r] * x[off + 2 * src];
          im += coefs[r] * x[off + 2 * src + 1];
        }
        sq += re * re + im * im;
      }
      for (long long n = off; n < off + 2 * g.order; ++n) covered[n] = true;
      if (sq > 0) terms.push_back(std::log(sq) + (query ? -2.0 : 2.0) * gamma[b] * p);
    }
  }
  double plain = 0;
  for (size_t n = 0; n < x.size(); ++n)
    if (!covered[n]) plain += x[n] * x[n];
  if (plain > 0) terms.push_back(std::log(plain));
  return logSumExp(terms);
}
}  // namespace

double RotaryEncoding::featureLogNormGain(const std::vector<double>& x, long long p,
                                          bool query) const {
  if (!hasFactorized()) return 0.0;
  double xNormSq = 0;
  for (double v : x) xNormSq += v * v;
  return rotaryLogNormSq(layout_, x, static_cast<double>(p), query) - std::log(xNormSq);
}

}  // namespace poslab
