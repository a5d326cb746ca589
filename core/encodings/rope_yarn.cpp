// YaRN (MATH 1.2.3) as the PJ-RoPE reference applies it: frequencies blended between theta_c / s
// and theta_c by the pair's rotation count over the training length, r_c = L theta_c / (2 pi):
// weight clamp((r_c - 1) / 31, 0, 1) on theta_c; and an attention temperature: q and k scaled by
// 0.1 ln(s) + 1. Peng et al., 2023. The model trains it
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
      "θ'_c = (θ_c/s)(1−w_c) + θ_c w_c,  w_c = clamp((Lθ_c/2π − 1)/31, 0, 1),  "
      "logits × (0.1 ln s + 1)²",
      "YaRN interpolates the slow channels (those that turn at most once over the training "
      "length), keeps the fast ones (32 turns or more), blends those between by their number of "
      "turns, and sharpens attention with a temperature.",
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
