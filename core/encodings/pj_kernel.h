// The PJ-RoPE additive kernel (docs/MATH.md 1.8.2) for one head, in its three sectors:
//   FJ_r(d)  = ((d/L)^r / r!) e^(-kappa d/L) alpha_r Re(zeta_r e^(i omega d))        (Fourier-jet)
//   Aff(d)   = -slope * rho(d),  rho(d) = d/L or asinh(d/L)                           (affine)
//   LC_r(d)  = beta_L(d)^r alpha_r Re(zeta_r e^(i omega phi_L(d)))                     (light cone)
//   b(d)     = g_FJ sum_r FJ_r + g_aff Aff + g_LC sum_r LC_r,
// phi_L(d) = L asinh(d/L), beta_L(d) = d / sqrt(d^2 + L^2).
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "encodings/lag_basis.h"

namespace poslab {

enum class PjSector { FJ = 0, Affine = 1, LC = 2 };
const char* pjSectorName(PjSector s);  // "FJ", "affine", "LC"

// Coefficients of one head, float64.
struct PjHead {
  double omega = 0;             // rad per position
  double kappa = 0;             // FJ damping per context length, kappa = softplus(raw)
  double slope = 0;             // affine slope softplus(s_h)
  double gates[3] = {1, 1, 1};  // g_FJ, g_aff, g_LC: softmax outputs, sum 1
  std::vector<double> alphaFj;  // alpha_r, r = 0..R (softmax over orders)
  std::vector<double> alphaLc;
  std::vector<double> zetaFjRe, zetaFjIm;  // zeta_r
  std::vector<double> zetaLcRe, zetaLcIm;
};

struct PjShape {
  double L = 256;
  long long order = 3;  // R: jet orders 0..R
  bool asinhRho = false;
};

// Sector basis over lags (one cos and one sin column per FJ and LC order, the affine column),
// without gates, alpha or zeta: the linear span a PJ-bias head lives in.
LagBasis pjBasis(const PjShape& shape, double omega, double kappa, const std::vector<double>& lags);

// One component C(d) of head h: sector FJ or LC at order r, or the affine sector (r ignored),
// including gate, alpha and zeta. Float64, straight from the formulas above.
double pjComponent(const PjShape& shape, const PjHead& head, PjSector sector, long long r,
                   double d);
// b(d) = sum of all components.
double pjKernel(const PjShape& shape, const PjHead& head, double d);

// The same coefficients as tensors, so that training can learn them (float64 or float32, any
// device). H heads, R + 1 orders.
struct PjTensors {
  at::Tensor gates;    // (H, 3) g_FJ, g_aff, g_LC (softmax outputs)
  at::Tensor alphaFj;  // (H, R+1)
  at::Tensor alphaLc;  // (H, R+1)
  at::Tensor zetaFj;   // (H, R+1, 2) re, im
  at::Tensor zetaLc;   // (H, R+1, 2)
  at::Tensor kappa;    // (H)
  at::Tensor slope;    // (H)
  at::Tensor omega;    // (H)
};
PjTensors pjTensorsFromHeads(const std::vector<PjHead>& heads, long long order);
// Reads tensors back into per-head doubles (for diagnostics and snapshots).
std::vector<PjHead> pjHeadsFromTensors(const PjTensors& t);

// b_h(i,j) (H, Tq, Tk) in d's dtype from the lag tensor d (Tq, Tk), 0 where d < 0.
at::Tensor pjBiasFromTensors(const PjShape& shape, const PjTensors& t, const at::Tensor& d);

// Fast path: b_h(i,j) for all heads (H, Tq, Tk) float64 from the lag tensor d (Tq, Tk) float64,
// 0 where d < 0.
at::Tensor pjBiasTensor(const PjShape& shape, const std::vector<PjHead>& heads,
                        const at::Tensor& d);

}  // namespace poslab
