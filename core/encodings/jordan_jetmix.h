// Jordan-RoPE with a jet mix (docs/MATH.md 1.7.9), the Jordan-RoPE reference code's
// jordan_jetmix_m* and jordan_jetmixfull_m* (JordanRoPE with jet_coefficients and
// jet_base_coefficient): blocks of m complex dims whose nilpotent factor at absolute position p is
//     P(-T_p) = sum_{r<m} c_r (-T_p)^r / r! N^r,     T_p = tau(p) / L,  tau(p) = p / (1 + |p|/L),
// with independent coefficients c_r instead of the exponential's (eta t)^r / r!. Keys get
// e^(-lambda p) P(-T_p) k, queries the inverse-transpose of that, so the score of block b is
//     s_b(i, j) = Re( q_b^H e^(lambda_b (i - j)) P(-T_i)^-1 P(-T_j) k_b ),   lambda = -gamma + i
//     omega.
// Not relative (T_i, T_j enter apart); factorized and direct. gamma = c / L (learned, floor 0),
// c_r = jet_max tanh(raw) learned, c_0 = 1 unless learn_jet0.
#pragma once

#include <vector>

#include "encodings/rotary_encoding.h"

namespace poslab {

// The jet-mix families' parameters at order m: c (decay per context length), the initial jets
// jet1..jet(m-1) (and jet0), jet_max, learn_jet0, L, omega, pin_omega, base, head_dim.
struct JetMixDefaults {
  long long order = 3;
  std::vector<double> jets;  // c_0 .. c_(m-1) at the start, e.g. {1, 0.10, 0.05}
  double jetMax = 1.0;       // cap of the learned jets
  bool learnJet0 = false;    // c_0 learned (the reference's jetmixfull)
  double headDim = 12;       // default head_dim (one block takes 2m reals)
};
std::vector<ParamSpec> jetMixParams(const JetMixDefaults& d);
// The reference's text settings (configs high_jet_wikitext103_jetmix_*, all with c150):
// jordan_jetmix_m3_g010_g005, jordan_jetmix_m4_g030_g010_g005 and
// jordan_jetmixfull_m4_g100_g050_g030_g020 (c_0 learned, cap 2).
JetMixDefaults jetMixM3Defaults();
JetMixDefaults jetMixM4Defaults();
JetMixDefaults jetMixM4FullDefaults();

class JordanJetEncoding : public RotaryEncoding {
 public:
  // Throws InvalidArgument for a learned jet at or beyond jet_max, or head_dim not a multiple
  // of 2m.
  JordanJetEncoding(const FamilyInfo& info, ParamSet params, long long order);

  // One block at the user's (gamma, omega), seen from key position 0: (tau(d)/L)^r e^(-gamma d)
  // cos/sin(omega d), r < m; kernel: the unit-content score of P(-T_d)^-1 P(0).
  LagBasis basis(const std::vector<double>& lags) const override;
  // Float64 from MATH 1.7.9 with explicit m x m complex matrices and a triangular solve.
  double referenceLogit(const double* q, const double* k, long long i, long long j,
                        long long head) const override;

 private:
  long long order_;
  std::vector<double> omega_;  // per block
  std::vector<double> jets_;   // c_0 .. c_(m-1)
  double gamma_ = 0, L_ = 256;
};

}  // namespace poslab
