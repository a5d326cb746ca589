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
double rho(const PjShape& s, double d) {
  return s.asinhRho ? std::asinh(d / s.L) : d / s.L;
}
double phiL(double L, double d) {
  return L * std::asinh(d / L);
}
double betaL(double L, double d) {
  return d / std::sqrt(d * d + L * L);
}
}  // namespace

const char* pjSectorName(PjSector s) {
  switch (s) {
    case PjSector::FJ:
      return "FJ";
    case PjSector::Affine:
      return "affine";
    case PjSector::LC:
      return "LC";
  }
  return "?";
}

LagBasis pjBasis(const PjShape& shape, double omega, double kappa,
                 const std::vector<double>& lags) {
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
      const double re =
          h.zetaFjRe[r] * std::cos(h.omega * d) - h.zetaFjIm[r] * std::sin(h.omega * d);
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

PjTensors pjTensorsFromHeads(const std::vector<PjHead>& heads, long long order) {
  const long long H = static_cast<long long>(heads.size()), R1 = order + 1;
  auto opts = at::TensorOptions().dtype(at::kDouble);
  PjTensors t{at::zeros({H, 3}, opts),     at::zeros({H, R1}, opts),    at::zeros({H, R1}, opts),
              at::zeros({H, R1, 2}, opts), at::zeros({H, R1, 2}, opts), at::zeros({H}, opts),
              at::zeros({H}, opts),        at::zeros({H}, opts)};
  for (long long h = 0; h < H; ++h) {
    const PjHead& p = heads[h];
    for (int s = 0; s < 3; ++s) t.gates[h][s] = p.gates[s];
    for (long long r = 0; r < R1; ++r) {
      t.alphaFj[h][r] = p.alphaFj[r];
      t.alphaLc[h][r] = p.alphaLc[r];
      t.zetaFj[h][r][0] = p.zetaFjRe[r];
      t.zetaFj[h][r][1] = p.zetaFjIm[r];
      t.zetaLc[h][r][0] = p.zetaLcRe[r];
      t.zetaLc[h][r][1] = p.zetaLcIm[r];
    }
    t.kappa[h] = p.kappa;
    t.slope[h] = p.slope;
    t.omega[h] = p.omega;
  }
  return t;
}

std::vector<PjHead> pjHeadsFromTensors(const PjTensors& t) {
  auto cpu = [](const at::Tensor& x) { return x.detach().to(at::kCPU, at::kDouble).contiguous(); };
  const at::Tensor gates = cpu(t.gates), aF = cpu(t.alphaFj), aL = cpu(t.alphaLc),
                   zF = cpu(t.zetaFj), zL = cpu(t.zetaLc), kappa = cpu(t.kappa),
                   slope = cpu(t.slope), omega = cpu(t.omega);
  const long long H = gates.size(0), R1 = aF.size(1);
  std::vector<PjHead> heads(static_cast<size_t>(H));
  for (long long h = 0; h < H; ++h) {
    PjHead& p = heads[h];
    for (int s = 0; s < 3; ++s) p.gates[s] = gates[h][s].item<double>();
    for (long long r = 0; r < R1; ++r) {
      p.alphaFj.push_back(aF[h][r].item<double>());
      p.alphaLc.push_back(aL[h][r].item<double>());
      p.zetaFjRe.push_back(zF[h][r][0].item<double>());
      p.zetaFjIm.push_back(zF[h][r][1].item<double>());
      p.zetaLcRe.push_back(zL[h][r][0].item<double>());
      p.zetaLcIm.push_back(zL[h][r][1].item<double>());
    }
    p.kappa = kappa[h].item<double>();
    p.slope = slope[h].item<double>();
    p.omega = omega[h].item<double>();
  }
  return heads;
}

at::Tensor pjBiasFromTensors(const PjShape& shape, const PjTensors& t, const at::Tensor& d) {
  const double L = shape.L;
  const auto dtype = d.scalar_type();
  auto col = [&](const at::Tensor& x) { return x.to(d.device()).to(dtype).view({-1, 1, 1}); };
  at::Tensor causal = d >= 0;
  at::Tensor x = d.clamp_min(0).unsqueeze(0);  // (1, Tq, Tk)
  at::Tensor u = x / L;
  at::Tensor rhoT = shape.asinhRho ? at::asinh(u) : u;
  at::Tensor phi = L * at::asinh(u);
  at::Tensor beta = x / at::sqrt(x * x + L * L);
  at::Tensor omega = col(t.omega);
  at::Tensor cw = at::cos(omega * x), sw = at::sin(omega * x);  // (H, Tq, Tk)
  at::Tensor cp = at::cos(omega * phi), sp = at::sin(omega * phi);
  at::Tensor fj = at::zeros_like(cw), lc = at::zeros_like(cw);
  at::Tensor jet = at::ones_like(x), betaPow = at::ones_like(x);  // (d/L)^r / r!, beta^r
  for (long long r = 0; r <= shape.order; ++r) {
    if (r > 0) {
      jet = jet * u / static_cast<double>(r);
      betaPow = betaPow * beta;
    }
    auto zf = t.zetaFj.select(1, r), zl = t.zetaLc.select(1, r);  // (H, 2)
    fj = fj + col(t.alphaFj.select(1, r)) * jet *
                  (col(zf.select(1, 0)) * cw - col(zf.select(1, 1)) * sw);
    lc = lc + col(t.alphaLc.select(1, r)) * betaPow *
                  (col(zl.select(1, 0)) * cp - col(zl.select(1, 1)) * sp);
  }
  at::Tensor gates = t.gates.to(d.device()).to(dtype);
  at::Tensor b = gates.select(1, 0).view({-1, 1, 1}) * at::exp(-col(t.kappa) * u) * fj -
                 gates.select(1, 1).view({-1, 1, 1}) * col(t.slope) * rhoT +
                 gates.select(1, 2).view({-1, 1, 1}) * lc;
  return at::where(causal.unsqueeze(0), b, at::zeros_like(b));
}

at::Tensor pjBiasTensor(const PjShape& shape, const std::vector<PjHead>& heads,
                        const at::Tensor& d) {
  return pjBiasFromTensors(shape, pjTensorsFromHeads(heads, shape.order), d);
}

}  // namespace poslab
