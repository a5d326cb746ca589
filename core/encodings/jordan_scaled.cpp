// Jordan-RoPE, scaled-exact (docs/MATH.md 1.7.7): gamma = c / L and shear time d / L,
//     G(d) = e^((-gamma + i omega) d)(I + eta (d/L) N),   gamma starts at c / L.
// Keeps the group law (factorized and direct). c = 1 by default; c = 0.1 is the other published
// setting. The model learns gamma (softplus(raw), floor 0, from c / L) and eta (eta_max tanh(raw)),
// one per head and block, as the reference code's jordan_exact_c*; eta_max = 0.1 by default and 1
// for the reference's "_eta1" variant. Shared with the scaled higher orders (jordan_higher_order).
#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/jordan_family.h"

namespace poslab {

namespace {
ParamSpec etaCap() {
  return {"eta_max",
          0.1,
          0.01,
          10,
          false,
          "cap of the learned shear, eta = eta_max tanh(raw): 0.1, or 1 (the reference's eta1)"};
}
}  // namespace

std::vector<ParamSpec> jordanScaledParams() {
  return {{"c", 1, 0, 100, false, "decay per context length: gamma = c / L (the model's start)"},
          common::omega(),
          common::eta(),
          common::contextScale(),
          etaCap(),
          common::pinOmega(),
          common::base(),
          common::headDim()};
}

JordanSpec jordanScaledSpec(const ParamSet& p, long long order) {
  const double L = p.get("L");
  JordanSpec spec;
  spec.order = order;
  spec.kind = ShearKind::Linear;
  spec.gamma = p.get("c") / L;
  spec.shear = p.get("eta") / L;
  spec.viewShear = p.get("eta");
  spec.viewTimeUnit = 1.0 / L;
  spec.L = L;
  spec.timeName = "d/L";
  // gamma from c / L with floor 0; eta in units of d / L, capped at eta_max.
  spec.learn = {/*gammaGroup=*/0, /*etaGroup=*/0, /*etaMax=*/p.get("eta_max"),
                /*shearPerL=*/true, /*gammaMin=*/0.0};
  return spec;
}

const FamilyInfo& JordanScaledInfo() {
  static const FamilyInfo info{
      "jordan-scaled", "Jordan-RoPE (scaled-exact)",
      "s_b = Re( q_b^H e^{(−c/L + iω)d}(I + η (d/L) N) k_b )",
      "The exact block measured in units of the context scale: decay c/L and shear time d/L. "
      "Keeps the group law, and its growth per context length is fixed by c, not by L.",
      jordanScaledParams()};
  return info;
}

std::unique_ptr<Encoding> makeJordanScaled(ParamSet p) {
  JordanSpec spec = jordanScaledSpec(p, 2);
  return std::make_unique<JordanEncoding>(JordanScaledInfo(), std::move(p), spec);
}

}  // namespace poslab
