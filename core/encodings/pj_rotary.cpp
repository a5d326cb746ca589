// PJ-RoPE, rotary form (MATH 1.8.3): the exact feature transform. A direct sum of Jordan blocks of
// order r (r + 1 complex dims each), G_b(d) = e^(lambda_b d) sum_{k<=r} (eta d N / L)^k / k!, with
// the contragredient query action and shear coordinate eta * pos / L. The last `affine_blocks`
// blocks have lambda = 0 and give the affine sector as a transform. Order 0 reduces to RoPE,
// order 1 to Jordan-RoPE exact (with eta_jordan = eta / L, base_jordan = base^2).
// Block b rotates at omega_b = base^(-b/nb) over the nb blocks, the reference code's schedule
// (pjrope/torch_backend.py, exact_pj_rotary_factors). The model uses it as the reference does: a
// fixed transform with eta = 1 and no decay (gamma = 0), nothing learned; learn_decay_shear = 1
// is PosLab's own variant, learning gamma and eta (eta = tanh(raw) on pos / L) per head and block.
#include "encodings/common_params.h"
#include "encodings/families.h"
#include "encodings/jordan_family.h"

namespace poslab {

namespace {
class PjRotary : public JordanEncoding {
 public:
  using JordanEncoding::JordanEncoding;
  LagBasis basis(const std::vector<double>& lags) const override {
    LagBasis b = JordanEncoding::basis(lags);
    if (params().getInt("affine_blocks") > 0) {
      LagBasis affine;
      affine.lags = lags;
      appendJordanBlockBasis(affine, 0.0, 0.0, params().get("eta"), params().getInt("order") + 1,
                             ShearKind::Linear, params().get("L"), "d/L", 1.0 / params().get("L"),
                             /*decayed=*/false);
      for (size_t c = 0; c < affine.names.size(); c += 2) {  // the sin columns vanish at omega 0
        b.add("affine:" + affine.names[c], affine.columns[c]);
      }
      for (size_t n = 0; n < lags.size(); ++n) b.kernel[n] += affine.kernel[n];
    }
    return b;
  }
};
}  // namespace

namespace {
// gamma as everywhere, but the model starts (and, unless learn_decay_shear, stays) at 0: the
// reference's PJ-rotary has no decay.
ParamSpec noDecayInTheModel() {
  ParamSpec s = common::gamma();
  s.trainedInit = 0.0;
  return s;
}
}  // namespace

const FamilyInfo& PjRotaryInfo() {
  static const FamilyInfo info{
      "pj-rotary",
      "PJ-RoPE (rotary form)",
      "s_b = Re( q_b^H e^{λ_b d} Σ_{k≤r} \\frac{(η d/L)^k}{k!} N^k k_b )",
      "The exact transform behind PJ-RoPE: Jordan blocks of a chosen order r with the "
      "contragredient query action. Order 0 is RoPE, order 1 is Jordan-RoPE; blocks with λ = 0 "
      "carry the affine (polynomial-in-distance) sector as a transform.",
      {{"order", 1, 0, 7, true, "r: each block holds r + 1 complex dims (jets up to d^r)"},
       noDecayInTheModel(),
       common::omega(),
       {"eta", 1, -1000, 1000, false, "shear strength on the coordinate pos / L"},
       common::contextScale(),
       {"affine_blocks", 0, 0, 512, true, "trailing blocks with lambda = 0 (affine sector)"},
       {"learn_decay_shear", 0, 0, 1, true,
        "0: the model keeps eta and gamma fixed (the reference); 1: it learns them (PosLab's)"},
       {"pin_omega", 0, 0, 1, true,
        "1: every block rotates at omega; 0: blocks follow omega_b = base^(-b/nb)"},
       common::base(),
       common::headDim()}};
  return info;
}

std::unique_ptr<Encoding> makePjRotary(ParamSet p) {
  const double L = p.get("L");
  JordanSpec spec;
  spec.order = p.getInt("order") + 1;
  spec.kind = ShearKind::Linear;
  spec.gamma = p.get("gamma");
  spec.shear = p.get("eta") / L;
  spec.viewShear = p.get("eta");
  spec.viewTimeUnit = 1.0 / L;
  spec.L = L;
  spec.affineBlocks = p.getInt("affine_blocks");
  spec.timeName = "d/L";
  spec.perBlockSchedule = true;
  // The reference learns nothing here; PosLab's variant learns gamma (0 on the affine blocks) and
  // eta, the latter on the coordinate pos / L.
  if (p.getInt("learn_decay_shear") == 1)
    spec.learn = {/*gammaGroup=*/0, /*etaGroup=*/0, /*etaMax=*/1.0, /*shearPerL=*/true};
  return std::make_unique<PjRotary>(PjRotaryInfo(), std::move(p), spec);
}

}  // namespace poslab
