// PJ-bias's trainable form (MATH 2.3): per head h, with H heads and R + 1 jet orders,
//     gates   = softmax(gate_logits) over the enabled sectors      gate_logits (H, 3)
//     alpha   = softmax(alpha_*_logits) over orders, times the LOO order mask   (H, R+1) each
//     zeta    = zeta_fj, zeta_lc, free                               (H, R+1, 2) re, im
//     kappa   = softplus(kappa_raw), slope = softplus(slope_raw)     (H) each
//     omega   = omega, free                                          (H)
// As the reference's PJBias (pjrope/attention.py): omega is learned from 2 pi linspace(1, 17, H)
// / L (a buffer, fixed, under pin_omega = 1), and zeta starts at 0.02 randn, drawn from torch's
// generator as the model's weights are. Each group can be pinned (held fixed as a buffer):
// "gates", "orders", "coefficients", "kappa", "slope". The score is the plain content product plus
// b_h(d).
#include <ATen/ATen.h>

#include "encodings/pj_bias.h"
#include "util/error.h"

namespace poslab {

namespace {
class PjBiasForm : public TrainableForm {
 public:
  PjBiasForm(const Encoding& enc, const TrainableContext& ctx)
      : shape_(pjShapeFromParams(enc.params())),
        init_(pjTensorsFromHeads(pjHeadsFromParams(enc.params()), shape_.order)),
        pinned_(ctx.pinned),
        omegaLearned_(enc.params().getInt("pin_omega") == 0),
        alphaPeak_(enc.params().getInt("alpha_peak")) {}

  std::vector<Learnable> learnables() const override {
    const long long H = init_.gates.size(0), R1 = shape_.order + 1;
    auto f64 = at::TensorOptions().dtype(at::kDouble);
    auto learned = [&](const char* pinName) { return pinned_.count(pinName) == 0; };
    auto invSoftplus = [](const at::Tensor& y) { return at::log(at::expm1(y.clamp_min(1e-8))); };
    auto f32 = [](const at::Tensor& t) { return t.to(at::kFloat); };
    // The reference's initial coefficients: 0.02 N(0, 1), independently per head, order, part.
    auto zetaInit = [&] {
      return 0.02 * at::randn({H, R1, 2}, at::TensorOptions().dtype(at::kFloat));
    };
    // The order logits as the reference starts them: 0, or -2 with +2 at alpha_peak.
    const std::vector<double> orderLogits = pjInitialOrderLogits(shape_.order, alphaPeak_);
    const at::Tensor alphaLogits =
        at::tensor(orderLogits, f64).unsqueeze(0).expand({H, R1}).contiguous();
    return {
        {"gate_enabled", f32(init_.gates > 0), false},
        {"omega", f32(init_.omega), omegaLearned_},
        {"order_mask", at::ones({2, R1}, at::TensorOptions().dtype(at::kFloat)), false},
        {"gate_logits", f32(at::log(init_.gates.clamp_min(1e-12))), learned("gates"), "gates"},
        {"alpha_fj_logits", f32(alphaLogits), learned("orders"), "orders"},
        {"alpha_lc_logits", f32(alphaLogits), learned("orders"), "orders"},
        {"zeta_fj", zetaInit(), learned("coefficients"), "coefficients"},
        {"zeta_lc", zetaInit(), learned("coefficients"), "coefficients"},
        {"kappa_raw", f32(invSoftplus(init_.kappa)), learned("kappa"), "kappa"},
        {"slope_raw", f32(invSoftplus(init_.slope)), learned("slope"), "slope"},
    };
  }

  TrainedScore score(const RawTensors& raw, const at::Tensor& q, const at::Tensor& k,
                     const at::Tensor&, bool) const override {
    TrainedScore out;
    out.fq = q;
    out.fk = k;
    out.bias = [this, raw](const at::Tensor& qp, const at::Tensor& kp, at::ScalarType dtype) {
      at::Tensor d = (qp.unsqueeze(1) - kp.unsqueeze(0)).to(dtype);  // (Tq, Tk)
      return pjBiasFromTensors(shape_, coefficients(raw), d);
    };
    return out;
  }

  std::map<std::string, std::vector<double>> snapshot(const RawTensors& raw) const override {
    std::map<std::string, std::vector<double>> out;
    PjTensors t = coefficients(raw);
    out["gate_FJ"] = tensorValues(t.gates.select(1, 0));
    out["gate_affine"] = tensorValues(t.gates.select(1, 1));
    out["gate_LC"] = tensorValues(t.gates.select(1, 2));
    out["kappa"] = tensorValues(t.kappa);
    out["omega"] = tensorValues(t.omega);
    out["slope"] = tensorValues(t.slope);
    // Effective mass per sector and order, averaged over heads (MATH 2.3).
    at::Tensor zf = t.zetaFj.norm(2, -1), zl = t.zetaLc.norm(2, -1);  // (H, R+1)
    at::Tensor mFj = (t.gates.select(1, 0).unsqueeze(1) * t.alphaFj * zf).mean(0);
    at::Tensor mLc = (t.gates.select(1, 2).unsqueeze(1) * t.alphaLc * zl).mean(0);
    for (long long r = 0; r <= shape_.order; ++r) {
      out["mass_FJ" + std::to_string(r)] = {mFj[r].item<double>()};
      out["mass_LC" + std::to_string(r)] = {mLc[r].item<double>()};
    }
    out["mass_affine"] = {(t.gates.select(1, 1) * t.slope).mean().item<double>()};
    return out;
  }

  // FJ orders 0..R, then LC orders 0..R; the affine sector has no orders.
  std::vector<Ablation> ablations() const override {
    std::vector<Ablation> out;
    for (PjSector s : {PjSector::FJ, PjSector::LC})
      for (long long r = 0; r <= shape_.order; ++r) out.push_back({pjSectorName(s), r});
    return out;
  }

  void setAblation(const RawTensors& raw, size_t index, double keep) const override {
    const size_t R1 = static_cast<size_t>(shape_.order + 1);
    if (index >= 2 * R1) TrainableForm::setAblation(raw, index, keep);
    at::NoGradGuard guard;
    raw.at("order_mask")[static_cast<int64_t>(index / R1)][static_cast<int64_t>(index % R1)] = keep;
  }

 private:
  // The constrained coefficients from the raw tensors.
  PjTensors coefficients(const RawTensors& raw) const {
    PjTensors t;
    at::Tensor gl = raw.at("gate_logits").masked_fill(raw.at("gate_enabled") == 0, -1e30);
    const at::Tensor& mask = raw.at("order_mask");
    t.gates = at::softmax(gl, -1);
    t.alphaFj = at::softmax(raw.at("alpha_fj_logits"), -1) * mask[0];
    t.alphaLc = at::softmax(raw.at("alpha_lc_logits"), -1) * mask[1];
    t.zetaFj = raw.at("zeta_fj");
    t.zetaLc = raw.at("zeta_lc");
    t.kappa = at::softplus(raw.at("kappa_raw"));
    t.slope = at::softplus(raw.at("slope_raw"));
    t.omega = raw.at("omega");
    return t;
  }

  PjShape shape_;
  PjTensors init_;  // initial coefficients, float64 (MATH 2.3)
  std::set<std::string> pinned_;
  bool omegaLearned_;    // false under pin_omega = 1: omega is a buffer at the user's omega
  long long alphaPeak_;  // alpha_peak: the order the initial order logits favour, -1 none
};
}  // namespace

std::unique_ptr<TrainableForm> makePjBiasForm(const Encoding& enc, const TrainableContext& ctx) {
  return std::make_unique<PjBiasForm>(enc, ctx);
}

}  // namespace poslab
