// xPos (docs/MATH.md 1.2.4): RoPE with q scaled by zeta_c^(i/512) and k by zeta_c^(-j/512),
// zeta_c = (2c + 0.4 D) / (1.4 D): the score decays as zeta_c^(d/512) = e^(-gamma_c d) with
// gamma_c = -ln(zeta_c) / 512. Sun et al., 2022.
#include <cmath>

#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/rope_like.h"
#include "encodings/schedules.h"

namespace poslab {

const FamilyInfo& XposInfo() {
  static const FamilyInfo info{
      "xpos",
      "xPos",
      "s(i,j) = Σ_c ζ_c^{d/512} Re( q̄_c k_c e^{iθ_c d} ),  ζ_c = \\frac{2c + 0.4D}{1.4D}",
      "xPos adds a per-channel exponential decay to RoPE: fast channels decay fastest, which "
      "damps the oscillation of long-range scores.",
      {common::base(), common::headDim()}};
  return info;
}

std::unique_ptr<Encoding> makeXpos(ParamSet p) {
  const long long D = p.getInt("head_dim");
  auto theta = ropeFrequencies(D, p.get("base"));
  std::vector<double> gamma;
  for (double z : xposZeta(D)) gamma.push_back(-std::log(z) / kXposScaleBase);
  return std::make_unique<RopeLikeEncoding>(XposInfo(), std::move(p), theta, gamma);
}

}  // namespace poslab
