// Jordan-RoPE, exact (docs/MATH.md 1.7.2). Blocks of two complex dims (4 reals) with generator
// J = lambda I + eta N, lambda = -gamma + i omega, N^2 = 0:
//     G(d) = e^(lambda d)(I + eta d N),   s_b = Re(q_b^H G(d) k_b)
//          = e^(-gamma d)[Re A cos(omega d) - Im A sin(omega d) + eta d (Re B cos - Im B sin)],
// A = conj(q1) k1 + conj(q2) k2, B = conj(q1) k2. The d e^(i omega d) "frequency tangent" couples
// distance and phase. Obeys the group law: factorized by the contragredient query action
// (keys G(-j) k, queries G(i)^H q), which overflows in float32 at long range (reported, never
// silent); the direct form is safe. Jordan-RoPE paper, section 3; MATH 1.7.3, 1.7.4.
#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/jordan_family.h"

namespace poslab {

const FamilyInfo& JordanExactInfo() {
  static const FamilyInfo info{
      "jordan-exact",
      "Jordan-RoPE (exact)",
      "s_b = Re( q_b^H e^{λd}(I + η d N) k_b ),  λ = −γ + iω",
      "A complex Jordan block: besides RoPE's e^{iωd} the score gains the frequency tangent "
      "d·e^{iωd}, which couples distance and phase in one feature. Exact shear τ(d) = d keeps the "
      "group law, so it factorizes (contragredient query action) — but the key factor grows like "
      "e^{γj}(1 + ηj) and breaks float32 at long range.",
      {common::gamma(), common::omega(), common::eta(), common::pinOmega(), common::base(),
       common::headDim()}};
  return info;
}

std::unique_ptr<Encoding> makeJordanExact(ParamSet p) {
  JordanSpec spec;
  spec.order = 2;
  spec.kind = ShearKind::Linear;
  spec.gamma = p.get("gamma");
  spec.shear = spec.viewShear = p.get("eta");
  spec.timeName = "d";
  spec.learn = {/*gammaGroup=*/0, /*etaGroup=*/0, /*etaMax=*/0.1, /*shearPerL=*/false};
  return std::make_unique<JordanEncoding>(JordanExactInfo(), std::move(p), spec);
}

}  // namespace poslab
