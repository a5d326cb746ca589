#include "encodings/pj_kernel.h"

#include <ATen/ATen.h>

#include <cmath>

namespace poslab {

namespace {
double factorial(long long r) {
  double f = 1;
  for (long long n = 2; n <= r; ++n) f *= static_cast<double>(n);
  return f;
}
double rho(const PjShape& s, double d) { return s.asinhRho ? std::asinh(d / s.L) : d / s.L; }
double phiL(double L, double d) { return L * std::asinh(d / L); }
double betaL(double L, double d) { return d / std::sqrt(d * d + L * L); }
}  // namespace

const char* pjSectorName(PjSector s) {
  switch (s) {
    case PjSector::FJ: return "FJ";
    case PjSector::Affine: return "affine";
    case PjSector::LC: return "LC";
  }
  return "?";
}

LagBasis pjBasis(const PjShape& shape, double omega, double kappa, const std::vector<double>& lags) {
  LagBasis b;
  b.lags = lags;
  const size_t n = lags.size();
  for (long long r = 0; r <= shape.order; ++r) {
    std::vector<double> c(n), s(n);
    for (size_t t = 0; t < n; ++t) {
      const double d = lags[t];
      const double env = std::pow(d / shape.L, static_cast<double>(r)) / factorial(r) *
                         std::exp(-kappa * d / shape.L);
      c[t] = env * std::cos(omega * d);
      s[t] = env * std::sin(omega * d);
    }
    b.add("FJ" + std::to_string(r) + "_cos", std::move(c));
    b.add("FJ" + std::to_string(r) + "_sin", std::move(s));
  }
  std::vector<double> aff(n);
  for (size_t t = 0; t < n; ++t) aff[t] = -rho(shape, lags[t]);
  b.add("affine", std::move(aff));
  for (long long r = 0; r <= shape.order; ++r) {
    std::vector<double> c(n), s(n);
    for (size_t t = 0; t < n; ++t) {
      const double d = lags[t];
      const double env = std::pow(betaL(shape.L, d), static_cast<double>(r));
      c[t] = env * std::cos(omega * phiL(shape.L, d));
      s[t] = env * std::sin(omega * phiL(shape.L, d));
    }
    b.add("LC" + std::to_string(r) + "_cos", std::move(c));
    b.add("LC" + std::to_string(r) + "_sin", std::move(s));
  }
  return b;
}

double pjComponent(const PjShape& shape, const PjHead& h, PjSector sector, long long r, double d) {
  const double L = shape.L;
  switch (sector) {
    case PjSector::FJ: {
      // ((d/L)^r / r!) e^(-kappa d/L) alpha_r Re(zeta_r e^(i omega d))
      const double re = h.zetaFjRe[r] * std::cos(h.omega * d) - h.zetaFjIm[r] * std::sin(h.omega * d);
      return h.gates[0] * std::pow(d / L, static_cast<double>(r)) / factorial(r) *
             std::exp(-h.kappa * d / L) * h.alphaFj[r] * re;
    }
    case PjSector::Affine:
      return h.gates[1] * -h.slope * rho(shape, d);
    case PjSector::LC: {
      const double ph = h.omega * phiL(L, d);
      const double re = h.zetaLcRe[r] * std::cos(ph) - h.zetaLcIm[r] * std::sin(ph);
      return h.gates[2] * std::pow(betaL(L, d), static_cast<double>(r)) * h.alphaLc[r] * re;
    }
  }
  return 0;
}

double pjKernel(const PjShape& shape, const PjHead& head, double d) {
  double b = pjComponent(shape, head, PjSector::Affine, 0, d);
  for (long long r = 0; r <= shape.order; ++r) {
    b += pjComponent(shape, head, PjSector::FJ, r, d);
    b += pjComponent(shape, head, PjSector::LC, r, d);
  }
  return b;
}

at::Tensor pjBiasTensor(const PjShape& shape, const std::vector<PjHead>& heads, const at::Tensor& d) {
  const double L = shape.L;
  at::Tensor causal = d >= 0;
  at::Tensor x = d.clamp_min(0);
  at::Tensor u = x / L;
  at::Tensor rhoT = shape.asinhRho ? at::asinh(u) : u;
  at::Tensor phi = L * at::asinh(u);
  at::Tensor beta = x / at::sqrt(x * x + L * L);
  std::vector<at::Tensor> out;
  for (const auto& h : heads) {
    at::Tensor decay = at::exp(-h.kappa * u);
    at::Tensor cw = at::cos(h.omega * x), sw = at::sin(h.omega * x);
    at::Tensor cp = at::cos(h.omega * phi), sp = at::sin(h.omega * phi);
    at::Tensor fj = at::zeros_like(x), lc = at::zeros_like(x);
    at::Tensor jet = at::ones_like(x), betaPow = at::ones_like(x);  // (d/L)^r / r!, beta^r
    for (long long r = 0; r <= shape.order; ++r) {
      if (r > 0) {
        jet = jet * u / static_cast<double>(r);
        betaPow = betaPow * beta;
      }
      fj = fj + h.alphaFj[r] * jet * (h.zetaFjRe[r] * cw - h.zetaFjIm[r] * sw);
      lc = lc + h.alphaLc[r] * betaPow * (h.zetaLcRe[r] * cp - h.zetaLcIm[r] * sp);
    }
    at::Tensor b = h.gates[0] * decay * fj - h.gates[1] * h.slope * rhoT + h.gates[2] * lc;
    out.push_back(at::where(causal, b, at::zeros_like(b)));
  }
  return at::stack(out, 0);
}

}  // namespace poslab
