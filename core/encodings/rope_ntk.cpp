// NTK-aware RoPE scaling (MATH 1.2.2): base' = base * s^(D/(D-2)); high frequencies barely move,
// the lowest is divided by s. The model trains it as plain RoPE and scales only past L (MATH
// 1.2.5), dynamically: s = T / L for T positions, as the reference code.
#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/rope_like.h"
#include "encodings/schedules.h"
#include "util/error.h"

namespace poslab {

const FamilyInfo& RopeNtkInfo() {
  static const FamilyInfo info{
      "rope-ntk",
      "RoPE + NTK-aware scaling",
      "base' = base · s^{D/(D−2)},  θ'_c = base'^{−2c/D}",
      "NTK-aware scaling raises the base instead of dividing every frequency: fast channels keep "
      "their resolution, slow channels stretch to cover the longer context.",
      {common::base(), common::headDim(), common::scale(), common::extensionTrainLength()}};
  return info;
}

std::unique_ptr<Encoding> makeRopeNtk(ParamSet p) {
  const long long D = p.getInt("head_dim");
  if (D <= 2) throw InvalidArgument("head_dim must exceed 2 for rope-ntk (base' uses D/(D-2))");
  const double base = p.get("base"), L = p.get("L");
  auto theta = ropeFrequencies(D, ntkBase(D, base, p.get("scale")));
  std::vector<double> gamma(theta.size(), 0.0);
  auto extension = [D, base, L](long long T) {
    return std::make_pair(ropeFrequencies(D, ntkBase(D, base, static_cast<double>(T) / L)), 1.0);
  };
  return std::make_unique<RopeExtensionEncoding>(RopeNtkInfo(), std::move(p), theta, gamma, 1.0,
                                                 extension);
}

}  // namespace poslab
