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

#include <functional>
#include <utility>
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

// D/2 undamped pairs at frequencies theta_c: the layout of RoPE and of its extensions.
JordanLayout ropePairLayout(long long D, const std::vector<double>& theta);

// PI, NTK and YaRN as the reference code trains and evaluates them (MATH 1.2.5): the model is
// plain RoPE while its positions fit in the training length L, and the family's extension at the
// factor the evaluation length asks for past it. The explorer shows the extension at the user's s.
class RopeExtensionEncoding : public RopeLikeEncoding {
 public:
  // theta'_c and the temperature (q and k each scaled by it) over `positions` > L positions.
  using Extension = std::function<std::pair<std::vector<double>, double>(long long positions)>;
  // theta, gamma and temperature: the explorer's view at the user's s (RopeLikeEncoding).
  RopeExtensionEncoding(const FamilyInfo& info, ParamSet params, std::vector<double> theta,
                        std::vector<double> gamma, double temperature, Extension extension);

  ModelLayout modelLayout(long long positions) const override;

 private:
  Extension extension_;
};

}  // namespace poslab
