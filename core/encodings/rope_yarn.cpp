// YaRN (MATH 1.2.3): frequencies blended between theta_c / s and theta_c by a ramp over channels
// (corr(r) = D ln(L_train / (2 pi r)) / (2 ln base), low = corr(32), high = corr(1)), and an
// attention temperature: q and k scaled by 0.1 ln(s) + 1. Peng et al., 2023. The model trains it
// as plain RoPE and extends only past L (MATH 1.2.5), dynamically: s = T / L for T positions.
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
       {"L", 256, 1, 1e7, false,
        "L_train, the training length: sets the ramp; the model is plain RoPE up to L"}}};
  return info;
}

std::unique_ptr<Encoding> makeRopeYarn(ParamSet p) {
  const double s = p.get("scale");
  const long long D = p.getInt("head_dim");
  const double base = p.get("base"), L = p.get("L");
  auto theta = yarnFrequencies(D, base, s, L);
  std::vector<double> gamma(theta.size(), 0.0);
  auto extension = [D, base, L](long long T) {
    const double factor = static_cast<double>(T) / L;
    return std::make_pair(yarnFrequencies(D, base, factor, L), yarnTemperature(factor));
  };
  return std::make_unique<RopeExtensionEncoding>(RopeYarnInfo(), std::move(p), theta, gamma,
                                                 yarnTemperature(s), extension);
}

}  // namespace poslab
