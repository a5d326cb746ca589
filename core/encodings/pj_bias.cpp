// PJ-RoPE, bias regime (docs/MATH.md 1.8.2): a learnable scalar additive logit kernel per head,
//     b_h(d) = g_FJ sum_r FJ_r(d) + g_aff Aff(d) + g_LC sum_r LC_r(d)      (see pj_kernel.h),
// on top of the plain content score q . k / sqrt(D). Not a feature transform: q and k are
// untouched, so the "factorized" form is the identity plus the bias. PJ-RoPE paper.
#include "encodings/pj_bias.h"

#include <ATen/ATen.h>

#include <cmath>

#include "encodings/common_params.h"
#include "encodings/content_encoding.h"
#include "encodings/families.h"
#include "util/error.h"

namespace poslab {

PjShape pjShapeFromParams(const ParamSet& p) {
  return PjShape{p.get("L"), p.getInt("order"), p.getInt("rho") == 1};
}

std::vector<double> pjInitialOrderLogits(long long R, long long peak) {
  if (peak < 0 || peak > R) return std::vector<double>(R + 1, 0.0);
  std::vector<double> logits(R + 1, -2.0);
  logits[peak] = 2.0;
  return logits;
}

std::vector<double> pjInitialOrderWeights(long long R, long long peak) {
  const std::vector<double> logits = pjInitialOrderLogits(R, peak);
  std::vector<double> w(logits.size());
  double z = 0;
  for (size_t r = 0; r < w.size(); ++r) z += w[r] = std::exp(logits[r]);
  for (double& x : w) x /= z;
  return w;
}

std::vector<PjHead> pjHeadsFromParams(const ParamSet& p) {
  const long long H = p.getInt("heads");
  const long long R = p.getInt("order");
  const double gsum = p.get("g_fj") + p.get("g_aff") + p.get("g_lc");
  if (gsum <= 0) {
    throw InvalidArgument("g_fj + g_aff + g_lc = 0: every sector is disabled",
                          "give at least one gate a positive value");
  }
  std::vector<PjHead> heads(static_cast<size_t>(H));
  for (long long h = 0; h < H; ++h) {
    PjHead& head = heads[h];
    // linspace(1, 17, H) cycles over L; one head takes 17, as the reference's _head_cycles.
    const double lin = H == 1 ? 17.0 : 1.0 + 16.0 * h / static_cast<double>(H - 1);
    head.omega = p.getInt("pin_omega") == 1 ? p.get("omega") : 2 * M_PI * lin / p.get("L");
    head.kappa = p.get("kappa");
    head.slope = p.get("slope");
    head.gates[0] = p.get("g_fj") / gsum;
    head.gates[1] = p.get("g_aff") / gsum;
    head.gates[2] = p.get("g_lc") / gsum;
    head.alphaFj = pjInitialOrderWeights(R, p.getInt("alpha_peak"));
    head.alphaLc = head.alphaFj;
    head.zetaFjRe.assign(R + 1, 1.0);
    head.zetaFjIm.assign(R + 1, 0.0);
    head.zetaLcRe = head.zetaFjRe;
    head.zetaLcIm = head.zetaFjIm;
  }
  return heads;
}

namespace {
class PjBias : public ContentEncoding {
 public:
  PjBias(const FamilyInfo& info, ParamSet p)
      : ContentEncoding(info, std::move(p)),
        shape_(pjShapeFromParams(params())),
        heads_(pjHeadsFromParams(params())) {
    requireShownHeadExists(params(), id());
  }
  long long heads() const override { return static_cast<long long>(heads_.size()); }

  LagBasis basis(const std::vector<double>& lags) const override {
    const PjHead& h = heads_[params().getInt("head") - 1];
    LagBasis b = pjBasis(shape_, h.omega, h.kappa, lags);
    b.kernel.resize(lags.size());
    for (size_t n = 0; n < lags.size(); ++n) b.kernel[n] = pjKernel(shape_, h, lags[n]);
    return b;
  }
  at::Tensor bias(long long numHeads, const at::Tensor& qPos, const at::Tensor& kPos,
                  at::ScalarType dtype) const override {
    if (numHeads != heads()) {
      throw InvalidArgument("q has " + std::to_string(numHeads) +
                                " heads but pj-bias was built "
                                "with heads = " +
                                std::to_string(heads()),
                            "set heads to the model's head count");
    }
    at::Tensor d = (qPos.unsqueeze(1) - kPos.unsqueeze(0)).to(at::kDouble);
    return pjBiasTensor(shape_, heads_, d).to(dtype);
  }
  double referenceLogit(const double* q, const double* k, long long i, long long j,
                        long long head) const override {
    const double d = static_cast<double>(i - j);
    return referenceContent(q, k) + pjKernel(shape_, heads_[head], d);
  }
  std::unique_ptr<TrainableForm> trainable(const TrainableContext& ctx) const override {
    return makePjBiasForm(*this, ctx);
  }
  const PjShape& shape() const { return shape_; }

 private:
  PjShape shape_;
  std::vector<PjHead> heads_;
};
}  // namespace

const FamilyInfo& PjBiasInfo() {
  static const FamilyInfo info{
      "pj-bias",
      "PJ-RoPE (bias: FJ, affine, LC sectors)",
      "b_h(d) = g_{FJ} Σ_r \\frac{(d/L)^r}{r!} e^{−κd/L} α_r Re(ζ_r e^{iωd}) − g_{aff}·slope·ρ(d) "
      "+ g_{LC} Σ_r "
      "β_L(d)^r α_r Re(ζ_r e^{iω φ_L(d)})",
      "Position space of linear recurrences: Fourier-jet terms (RoPE at order 0, Jordan jets "
      "above), an affine recency sector (ALiBi-like) and a light-cone sector whose phase runs on "
      "φ_L(d) = L asinh(d/L) and whose amplitude β_L(d) saturates at 1: bounded at any length, at "
      "the price of far-range phase resolution. Sector gates and jet orders say where the "
      "kernel's mass sits.",
      {common::contextScale(),
       common::heads(),
       common::head(),
       {"order", 3, 0, 8, true, "R: jet orders r = 0..R in the FJ and LC sectors"},
       {"kappa", std::log1p(std::exp(-2.0)), 0, 100, false,
        "FJ damping e^(-kappa d/L); kappa = softplus(raw), raw starts at -2"},
       {"slope",
        std::log(2.0),
        0,
        100,
        false,
        "affine slope softplus(s_h): Aff(d) = -slope rho(d)",
        {{"g_aff", 0, "the slope enters only the affine sector, whose gate $g_{aff}$ is 0"}}},
       {"g_fj", 1.0 / 3, 0, 1, false, "FJ sector gate (gates are normalised to sum 1; 0 disables)"},
       {"g_aff", 1.0 / 3, 0, 1, false, "affine sector gate"},
       {"g_lc", 1.0 / 3, 0, 1, false, "light-cone sector gate"},
       {"rho", 0, 0, 1, true, "recency coordinate: 0 = d/L (linear), 1 = asinh(d/L) (light cone)"},
       {"alpha_peak", -1, -1, 8, true,
        "initial order weights: -1 uniform; r: softmax of logits -2, +2 at order r (the "
        "reference's order_init auto); an r above the order leaves them uniform"},
       [] {
         ParamSpec omega = common::omega();
         omega.noEffectWhen = {{"pin_omega", 0, "each head has its own $ω_h$ while pin ω is off"}};
         return omega;
       }(),
       {"pin_omega", 0, 0, 1, true,
        "1: every head at omega; 0: omega_h = 2 pi linspace(1, 17, H)_h / L"},
       common::headDim()},
      // The reference's make_pj_bias: its --sectors and inits set these; no sector at all is
      // plain causal attention, family nope.
      SectorParams{{"g_fj", "g_aff", "g_lc"}, "order", "alpha_peak", NopeInfo().id},
      // The learned gates after their softmax are normalised as the explorer's are.
      {{"gate_FJ", "g_fj"}, {"gate_affine", "g_aff"}, {"gate_LC", "g_lc"}}};
  return info;
}

std::unique_ptr<Encoding> makePjBias(ParamSet p) {
  return std::make_unique<PjBias>(PjBiasInfo(), std::move(p));
}

}  // namespace poslab
