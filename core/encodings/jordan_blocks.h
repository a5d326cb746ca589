// The shared engine of every rotary family: a head split into complex Jordan blocks.
//
// A block of order m holds m complex numbers x_l = v[2l] + i v[2l+1] (2m reals). Its generator is
// J = lambda I + a N with lambda = -gamma + i omega and N the m x m nilpotent shift (N^m = 0), so
//     G(t) = exp(t J) = e^(lambda t) sum_{r<m} (a t)^r / r! N^r,       s(i,j) = Re( q^H G k ).
// RoPE is m = 1, gamma = 0; damped RoPE m = 1; Jordan-RoPE m = 2; xPos is m = 1 with per-pair
// gamma; PJ-rotary any m. The shear time a*t is a*d (linear: the group law holds), a*tau(d) with
// tau(d) = d / (1 + d/L) (saturating: direct form only), or a*(tau(i) - tau(j)) with
// tau(p) = p / (1 + |p|/L) (the absolute-shear variant: factorized, not relative).
//
// Factorized form (contragredient query action): keys get G(-j) k, queries get G(i)^H q, so
// (G(i)^H q)^H (G(-j) k) = q^H G(i - j) k. Direct form: both sides are rotated by the unit phase
// e^(-i omega p) (always safe), the per-order content products P_r = Re sum_l conj(q_l) k_(l+r)
// are taken by matmul, and weighted by the lag weights e^(-gamma d) (a t)^r / r!.
#pragma once

#include <ATen/core/Tensor.h>

#include <utility>
#include <vector>

#include "encodings/encoding.h"

namespace poslab {

enum class ShearKind {
  Linear,             // t = d: exact, group law, factorized and direct
  Saturating,         // t = tau(d) = d / (1 + d/L): relative, direct form only
  AbsoluteSaturating  // t = tau(i) - tau(j), tau(p) = p / (1 + |p|/L): factorized, not relative
};

// A run of `blocks` equal-order blocks over consecutive head dims [offset, offset +
// 2*order*blocks).
struct JordanGroup {
  long long offset = 0;  // first real head dim of the run
  long long blocks = 0;  // nb
  long long order = 1;   // m complex components per block
  // gamma and shear are (nb), shared by every head, or (H, nb), one value per head and block (the
  // trained form); the engine broadcasts either against q's heads.
  at::Tensor gamma;  // (nb) or (H, nb) float64 decay per block, >= 0
  at::Tensor omega;  // (nb) float64 frequency per block, rad per position
  at::Tensor shear;  // (nb) or (H, nb) float64 shear coefficient a per block (eta, or eta / L)
  // Jet mix (MATH 1.7.9): undefined for the exponential shear above; else (m, nb) or (m, H, nb)
  // float64 coefficients c_0..c_(m-1), and each side's nilpotent factor is
  // P(-T(p)) = sum_r c_r (-T(p))^r / r! N^r with T(p) = a * (p or tau(p)): keys P(-T(j)), queries
  // the inverse-transpose of P(-T(i)), so the score holds P(-T(i))^-1 P(-T(j)). c = 1 is exp.
  at::Tensor jet;
  ShearKind kind = ShearKind::Linear;
  double L = 256;  // context scale of tau

  long long dims() const { return 2 * order * blocks; }
};

struct JordanLayout {
  long long dim = 0;  // head dim D; dims no group covers pass through unchanged (content only)
  std::vector<JordanGroup> groups;
};

// Builds a group; gamma/omega/shear given per block as doubles.
JordanGroup makeJordanGroup(long long offset, long long order, const std::vector<double>& gamma,
                            const std::vector<double>& omega, const std::vector<double>& shear,
                            ShearKind kind, double L);

bool jordanHasFactorized(const JordanLayout& layout);
bool jordanIsRelative(const JordanLayout& layout);

// q (B,H,Tq,D), k (B,H,Tk,D), positions int64 (T) -> q', k' of the same shapes.
// Throws NumericalRangeError when q's dtype cannot hold the transform at these positions.
FactorizedQK jordanFactorize(const JordanLayout& layout, const at::Tensor& q, const at::Tensor& k,
                             const at::Tensor& qPos, const at::Tensor& kPos);

// The per-position part of each group's factorized transform, e^(-+gamma p) e^(-i omega p) as
// its (cos, sin) parts, (1, Hg, T, nb, 1) each in dtype on device; queries take e^(-gamma p),
// keys e^(gamma p). A family whose layout does not change between forwards (nothing learned)
// computes them once per (positions, device, dtype) (rotary_trainable.cpp).
struct JordanRotationFactors {
  std::vector<std::pair<at::Tensor, at::Tensor>> query, key;  // one (cos, sin) per group
};
JordanRotationFactors jordanRotationFactors(const JordanLayout& layout, const at::Tensor& pos,
                                            at::ScalarType dtype, at::Device device);

// jordanFactorize with the factors of these positions given, and no range check (the caller
// made it, or the layout is a pure rotation, which cannot fail it). Throws InvalidArgument when
// the factors are not the layout's.
FactorizedQK jordanFactorizeWith(const JordanLayout& layout, const at::Tensor& q,
                                 const at::Tensor& k, const at::Tensor& qPos,
                                 const at::Tensor& kPos, const JordanRotationFactors& factors);

// How the direct form weights each block's products by its lag weights.
enum class DirectScoring {
  Auto,     // one matmul per order over all blocks when e^(-gamma d) factorizes in range, else:
  PerBlock  // one (Tq, Tk) product per block: any gamma (the reference the fast path is tested on)
};

// s(i,j) (B,H,Tq,Tk) in q's dtype; 0 where j > i.
at::Tensor jordanDirectScores(const JordanLayout& layout, const at::Tensor& q, const at::Tensor& k,
                              const at::Tensor& qPos, const at::Tensor& kPos,
                              DirectScoring how = DirectScoring::Auto);

// The direct form as lag-weighted products (trainable.h, MATH 2.6), for the fused kernel: per
// group and order r >= 1 one term with fq = q's components l < m - r turned by the unit phase
// e^(-i omega p) and multiplied by a_b^r, fk = k's components l + r turned likewise, decay = the
// blocks' gamma and lag w(d) = t(d)^r / r! (t = d or tau(d)); every order-0 product and the dims
// outside every group in one term without lag weight. q, k (B, H, T, D), pos (T) int64
// consecutive. Empty when a group has no lag function: a jet mix, or an absolute shear time of
// order > 1 (those keep jordanDirectScores).
std::vector<LagWeightedTerm> jordanLagWeightedTerms(const JordanLayout& layout, const at::Tensor& q,
                                                    const at::Tensor& k, const at::Tensor& pos);

PrecisionReport jordanPrecision(const JordanLayout& layout, long long maxPos, bool float32);

// Kernel view of one block (float64): for r < order, t(d)^r e^(-gamma d) cos(omega d) and the same
// with sin, named with `timeName` ("d", "tau", "d/L") and "exp*" when `decayed`; kernel +=
// e^(-gamma d) sum_r (a t)^r/r! cos.
void appendJordanBlockBasis(LagBasis& basis, double gamma, double omega, double shear,
                            long long order, ShearKind kind, double L, const std::string& timeName,
                            double timeUnit = 1.0, bool decayed = true);

// The jet mix's nilpotent coefficients (MATH 1.7.9) at shear time T: a_r = c_r (-T)^r / r!, r < m,
// the factor P(-T) of a key; and the Toeplitz inverse b_0 = 1 / a_0,
// b_r = -(sum_{p=1..r} a_p b_(r-p)) / a_0, the factor P(-T)^-1 of a query. Tensors broadcast
// (c_r against T); the double forms are for one block.
std::vector<at::Tensor> jetCoefficients(const std::vector<at::Tensor>& c, const at::Tensor& T);
std::vector<at::Tensor> jetInverse(const std::vector<at::Tensor>& a);
std::vector<double> jetCoefficients(const std::vector<double>& c, double T);
std::vector<double> jetInverse(const std::vector<double>& a);

// tau(d) = d / (1 + |d| / L): the stabilized shear time of MATH 1.7.5.
inline double stabilizedTau(double d, double L) {
  return d / (1.0 + (d < 0 ? -d : d) / L);
}

}  // namespace poslab
