// Base of every family whose score is a sum of complex Jordan blocks (jordan_blocks.h): it owns
// the block layout and routes the factorized and direct forms to the shared engine. Subclasses
// build the layout from their parameters and provide the kernel view and float64 reference.
#pragma once

#include "encodings/encoding.h"
#include "encodings/jordan_blocks.h"

namespace poslab {

// What the model learns of a rotary family (MATH 2.3), chosen in the family's own file; the
// parameterisation itself is in rotary_trainable.cpp.
struct RotaryLearnables {
  int gammaGroup = -1;     // layout group whose decay gamma (heads x blocks) is learned; -1: none
  int etaGroup = -1;       // layout group whose shear eta (heads x blocks) is learned; -1: none
  double etaMax = 0.1;     // eta = etaMax tanh(raw), e.g. 0.1 (or 1 in units of d / L)
  bool shearPerL = false;  // the shear coefficient is eta / L (shear time d / L)
  double gammaMin = 1e-4;  // gamma = softplus(raw) + gammaMin (0 for the scaled-exact family)
  // The jet mix (MATH 1.7.9): the group whose jet coefficients c_1..c_(m-1) are learned, as
  // c_r = jetMax tanh(raw) (jet_raw (m-1, H, nb)), and c_0 too when learnJet0 (jet0_raw (H, nb));
  // -1: none.
  int jetGroup = -1;
  double jetMax = 1.0;  // e.g. 1, or 2 (the reference's jetmixfull)
  bool learnJet0 = false;
};

class RotaryEncoding : public Encoding {
 public:
  RotaryEncoding(const FamilyInfo& info, ParamSet params) : Encoding(info, std::move(params)) {}

  bool isRelative() const override { return jordanIsRelative(layout_); }
  bool hasFactorized() const override { return jordanHasFactorized(layout_); }
  FactorizedQK factorize(const at::Tensor& q, const at::Tensor& k, const at::Tensor& qPos,
                         const at::Tensor& kPos) const override {
    return jordanFactorize(layout_, q, k, qPos, kPos);
  }
  PrecisionReport factorizedPrecision(long long maxPos, bool float32) const override {
    return jordanPrecision(layout_, maxPos, float32);
  }
  at::Tensor directScores(const at::Tensor& q, const at::Tensor& k, const at::Tensor& qPos,
                          const at::Tensor& kPos) const override {
    return jordanDirectScores(layout_, q, k, qPos, kPos);
  }
  const JordanLayout& layout() const { return layout_; }
  // Block by block from the layout (rotary_feature_norm.cpp); 0 without a factorized form.
  double featureLogNormGain(const std::vector<double>& x, long long p, bool query) const override;

  // What the trained model uses over a forward whose positions lie in [0, positions): the block
  // layout and a factor on the score s (relative to scoreScale()). The family's own layout and 1,
  // unless the family extends RoPE only past the training length (PI, NTK, YaRN: plain RoPE
  // inside it, the extension at s = positions / L past it, as the reference code evaluates).
  struct ModelLayout {
    JordanLayout layout;
    double scoreFactor = 1.0;
  };
  virtual ModelLayout modelLayout(long long positions) const { return {layout_, 1.0}; }

  const RotaryLearnables& learnables() const { return learnables_; }
  // gamma_raw, eta_raw on the groups learnables() names (rotary_trainable.cpp).
  std::unique_ptr<TrainableForm> trainable(const TrainableContext& ctx) const override;

 protected:
  JordanLayout layout_;
  RotaryLearnables learnables_;  // nothing learned unless the family says so
};

// Float64 reference for one block, straight from MATH 1.7.1: s = Re(q^H G k) with the explicit
// m x m complex matrix G = e^(lambda d) sum_{r<m} (shearTime)^r / r! N^r, lambda = -gamma + i
// omega. q, k point at the block's 2m reals (re, im interleaved); shearTime is a * t already.
double referenceJordanBlock(const double* q, const double* k, long long m, double gamma,
                            double omega, double shearTime, double d);

// Throws InvalidArgument unless head_dim is divisible by `divisor` (named in the message).
void requireHeadDimMultiple(const Encoding& enc, long long divisor, const std::string& why);

}  // namespace poslab
