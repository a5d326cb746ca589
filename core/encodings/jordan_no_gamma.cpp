// Jordan-RoPE without decay (MATH 1.7.12): the reference's jordan_no_gamma ablation, JordanRoPE
// with learn_gamma=False and force_zero_gamma: the bounded absolute shear of
// jordan-stabilized-abs with gamma = 0 exactly and not learned,
//     s_b = Re( q_b^H e^(i omega d) (I + eta (tau(i) - tau(j)) N) k_b ),  tau(p) = p / (1 + |p|/L),
// eta learned per head and block (cap 0.1, from 0). It asks what the decay adds to the shear.
#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/jordan_family.h"

namespace poslab {

const FamilyInfo& JordanNoGammaInfo() {
  static const FamilyInfo info{
      "jordan-no-gamma",
      "Jordan-RoPE without decay (γ = 0)",
      "s_b = Re( q_b^H e^{iωd}(I + η (τ(i) − τ(j)) N) k_b ),  τ(p) = \\frac{p}{1 + |p|/L}",
      "The reference's jordan_no_gamma ablation: the trainable Jordan-RoPE with its decay removed "
      "(γ = 0, not learned), so only the rotation and the bounded shear remain.",
      {common::omega(), common::eta(), common::contextScale(), common::boundedShearCap(),
       common::pinOmega(), common::base(), common::headDim()}};
  return info;
}

std::unique_ptr<Encoding> makeJordanNoGamma(ParamSet p) {
  // No gamma parameter: the bounded-shear spec has gamma = 0 and learns none (force_zero_gamma).
  const JordanSpec spec = jordanBoundedShearSpec(p, /*order=*/2);
  return std::make_unique<JordanEncoding>(JordanNoGammaInfo(), std::move(p), spec);
}

}  // namespace poslab
