// RoPE (docs/MATH.md 1.2). Channel pairs c = 0..D/2-1 rotate at theta_c = base^(-2c/D):
//     s(i,j) = sum_c Re( conj(q_c) k_c e^(i theta_c d) ),  kernel basis cos(theta_c d), sin(theta_c
//     d).
// Su et al., RoFormer. Sign convention: see rope_like.h.
#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/rope_like.h"
#include "encodings/schedules.h"

namespace poslab {

const FamilyInfo& RopeInfo() {
  static const FamilyInfo info{
      "rope",
      "RoPE",
      "s(i,j) = Σ_c Re( q̄_c k_c e^{iθ_c d} ),  θ_c = base^{−2c/D}",
      "Rotary position embedding: each channel pair is a complex number turned by an angle "
      "proportional to its position, so the score depends only on the lag through "
      "cos(θ_c d) and sin(θ_c d). Pure phase: no decay, no distance channel.",
      {common::base(), common::headDim()}};
  return info;
}

std::unique_ptr<Encoding> makeRope(ParamSet p) {
  const long long D = p.getInt("head_dim");
  auto theta = ropeFrequencies(D, p.get("base"));
  std::vector<double> gamma(theta.size(), 0.0);
  return std::make_unique<RopeLikeEncoding>(RopeInfo(), std::move(p), theta, gamma);
}

}  // namespace poslab
