// YaRN (MATH 1.2.3): frequencies blended between theta_c / s and theta_c by a ramp over channels
// (corr(r) = D ln(L_train / (2 pi r)) / (2 ln base), low = corr(32), high = corr(1)), and an
// attention temperature: q and k scaled by 0.1 ln(s) + 1. Peng et al., 2023.
#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/rope_like.h"
#include "encodings/schedules.h"

namespace poslab {

const FamilyInfo& RopeYarnInfo() {
  static const FamilyInfo info{
      "rope-yarn",
      "RoPE + YaRN",
      "θ'_c = (θ_c/s)(1−mask_c) + θ_c mask_c,  logits × (0.1 ln s + 1)²",
      "YaRN interpolates only the slow channels (those that turn less than once over the "
      "training length), keeps the fast ones, and sharpens attention with a temperature.",
      {common::base(),
       common::headDim(),
       common::scale(),
       {"L", 256, 1, 1e7, false, "L_train, the training length that sets the ramp"}}};
  return info;
}

std::unique_ptr<Encoding> makeRopeYarn(ParamSet p) {
  const double s = p.get("scale");
  auto theta = yarnFrequencies(p.getInt("head_dim"), p.get("base"), s, p.get("L"));
  std::vector<double> gamma(theta.size(), 0.0);
  return std::make_unique<RopeLikeEncoding>(RopeYarnInfo(), std::move(p), theta, gamma,
                                            yarnTemperature(s));
}

}  // namespace poslab
