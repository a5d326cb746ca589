#include "encodings/rotary_encoding.h"

#include <complex>
#include <vector>

#include "util/error.h"

namespace poslab {

double referenceJordanBlock(const double* q, const double* k, long long m, double gamma,
                            double omega, double shearTime, double d) {
  using C = std::complex<double>;
  // G = e^(lambda d) * sum_r (shearTime N)^r / r!, built entry by entry: (N^r)_{l, l+r} = 1.
  std::vector<C> G(static_cast<size_t>(m * m), C(0, 0));
  const C scalar = std::exp(C(-gamma, omega) * d);
  double coef = 1.0;
  for (long long r = 0; r < m; ++r) {
    for (long long l = 0; l + r < m; ++l) G[l * m + l + r] += scalar * coef;
    coef *= shearTime / static_cast<double>(r + 1);
  }
  C s(0, 0);
  for (long long row = 0; row < m; ++row) {
    C gk(0, 0);
    for (long long col = 0; col < m; ++col) gk += G[row * m + col] * C(k[2 * col], k[2 * col + 1]);
    s += std::conj(C(q[2 * row], q[2 * row + 1])) * gk;
  }
  return s.real();
}

void requireHeadDimMultiple(const Encoding& enc, long long divisor, const std::string& why) {
  if (enc.headDim() % divisor != 0) {
    throw InvalidArgument("head_dim = " + std::to_string(enc.headDim()) + " is not divisible by " +
                              std::to_string(divisor) + " for family " + enc.id(),
                          why);
  }
}

}  // namespace poslab
