// Shared body of the families that rotate D/2 channel pairs, each pair c a complex number with
// its own frequency theta_c and decay gamma_c: RoPE, PI, NTK, YaRN, xPos, damped RoPE, RoPE+ALiBi.
//
// Sign convention (one for every rotary family; MATH 0.3): s_c = Re( conj(q_c) k_c
// e^((-gamma_c + i theta_c) d) ), the gamma = 0, eta = 0 member of the Jordan family, so that the
// reductions of docs/MATH.md hold exactly. The factorized form therefore rotates q and k by
// e^(-i theta p). The counter-clockwise rotation of the RoPE paper gives the mirror image
// Re(conj(q_c) k_c e^(-i theta_c d)): the same family with theta -> -theta and the same kernel
// basis {cos theta d, sin theta d}; a test checks this.
#pragma once

#include <vector>

#include "encodings/rotary_encoding.h"

namespace poslab {

class RopeLikeEncoding : public RotaryEncoding {
 public:
  // theta, gamma: one value per pair (D/2 each). temperature multiplies the logit's 1/sqrt(D).
  RopeLikeEncoding(const FamilyInfo& info, ParamSet params, std::vector<double> theta,
                   std::vector<double> gamma, double temperature = 1.0);

  // cos_c / sin_c per pair (times e^(-gamma_c d) when decayed); kernel = mean over pairs of
  // e^(-gamma_c d) cos(theta_c d), the score of unit content.
  LagBasis basis(const std::vector<double>& lags) const override;
  // The pair whose theta_c is nearest to omega: {cos, sin} (times its decay).
  LagBasis probeBasis(const std::vector<double>& lags, double omega) const override;
  double scoreScale() const override;
  double referenceLogit(const double* q, const double* k, long long i, long long j,
                        long long head) const override;

  const std::vector<double>& frequencies() const { return theta_; }
  const std::vector<double>& decays() const { return gamma_; }

 protected:
  // Reference of the content-position part only (no bias), scaled: scoreScale * s.
  double referenceScaledScore(const double* q, const double* k, long long i, long long j) const;

 private:
  std::vector<double> theta_, gamma_;
  double temperature_;
};

}  // namespace poslab
