// The light-cone chart as a per-position transform of q and k (docs/MATH.md 4.3.1): PJ-RoPE's
// light-cone coordinates (pjrope/torch_backend.py phi_l, beta_l) applied to the absolute position
// p instead of the lag. Per block of m complex dims (frequency w_b = base^(-2b/D)) the key and the
// query are turned by the unit phase e^(-i w_b phi_L(p)) and sheared by u(p) = eta beta_L(p):
//     k'(j) = e^(-i w phi_L(j)) exp(-u(j) N) k,      q'(i) = e^(-i w phi_L(i)) exp(u(i) N)^H q,
// so that q'(i)^H k'(j) = e^(i w (phi_L(i) - phi_L(j))) q^H exp((u(i) - u(j)) N) k: the block's
// kernel in chart differences. |beta_L| < 1 keeps every norm ratio below sum_r |eta|^r / r! at any
// position, where the exact factorized form (MATH 1.7.3) grows as e^(gamma p) times a polynomial
// in p. phi_L(p) = L asinh(p/L), beta_L(p) = p / sqrt(p^2 + L^2).
#pragma once

#include <vector>

namespace poslab {

struct LightConeChart {
  double L = 1024;         // the chart's scale (a family's L when it has one)
  long long order = 2;     // m: complex dims per block; D must be divisible by 2m
  double eta = 1;          // shear on beta_L (the PJ-rotary reference's eta = 1)
  double base = 10000;     // block frequencies base^(-2b/D)
  long long headDim = 16;  // D
};

// Throws InvalidArgument naming the field for L <= 0, order < 1, D not divisible by 2m, a
// non-finite eta or base <= 1.
void checkLightConeChart(const LightConeChart& chart);

// x' for the head vector x (D reals, complex pairs (x[2l], x[2l+1])) at position p >= 0; query:
// the query side, else the key side. Float64.
std::vector<double> lightConeTransform(const LightConeChart& chart, const std::vector<double>& x,
                                       double p, bool query);

// Natural log of ||x'(p)||^2 / ||x||^2.
double lightConeLogNormGain(const LightConeChart& chart, const std::vector<double>& x, double p,
                            bool query);

// The largest norm ratio any vector can reach on either side at any position (a bound): the
// operator norm of exp(eta beta N) is at most sum_{r<m} |eta|^r / r!.
double lightConeNormBound(const LightConeChart& chart);

}  // namespace poslab
