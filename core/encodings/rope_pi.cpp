// RoPE with position interpolation (MATH 1.2.1): every theta_c divided by s = L_eval / L_train,
// so positions up to s * L_train fall inside the trained angle range. Chen et al., 2023.
#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/rope_like.h"
#include "encodings/schedules.h"

namespace poslab {

const FamilyInfo& RopePiInfo() {
  static const FamilyInfo info{
      "rope-pi",
      "RoPE + position interpolation",
      "θ'_c = θ_c / s,  s = L_{eval} / L_{train}",
      "Position interpolation squeezes every rotation frequency by the extension factor s, so a "
      "long context reuses the angles seen in training at the price of finer angular spacing.",
      {common::base(), common::headDim(), common::scale()}};
  return info;
}

std::unique_ptr<Encoding> makeRopePi(ParamSet p) {
  auto theta = piFrequencies(p.getInt("head_dim"), p.get("base"), p.get("scale"));
  std::vector<double> gamma(theta.size(), 0.0);
  return std::make_unique<RopeLikeEncoding>(RopePiInfo(), std::move(p), theta, gamma);
}

}  // namespace poslab
