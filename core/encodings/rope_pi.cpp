// RoPE with position interpolation (MATH 1.2.1): every theta_c divided by s = L_eval / L_train,
// so positions up to s * L_train fall inside the trained angle range. Chen et al., 2023.
// The model trains it as plain RoPE and interpolates only past L (MATH 1.2.5), with the reference
// code's factor s = (T - 1) / (L - 1) for T positions: position T - 1 maps onto L - 1.
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
      {common::base(), common::headDim(), common::scale(), common::extensionTrainLength()}};
  return info;
}

std::unique_ptr<Encoding> makeRopePi(ParamSet p) {
  const long long D = p.getInt("head_dim");
  const double base = p.get("base"), L = p.get("L");
  auto theta = piFrequencies(D, base, p.get("scale"));
  std::vector<double> gamma(theta.size(), 0.0);
  auto extension = [D, base, L](long long T) {
    const double s = L > 1 ? (static_cast<double>(T) - 1.0) / (L - 1.0) : static_cast<double>(T);
    return std::make_pair(piFrequencies(D, base, s), 1.0);
  };
  return std::make_unique<RopeExtensionEncoding>(RopePiInfo(), std::move(p), theta, gamma, 1.0,
                                                 extension);
}

}  // namespace poslab
