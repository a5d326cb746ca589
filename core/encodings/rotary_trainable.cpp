// The trainable form of every rotary family (MATH 2.3): the family names which group of its
// Jordan layout learns the decay and which the shear (RotaryLearnables, set in the family's own
// file); this file holds their parameterisation,
//     gamma = softplus(gamma_raw) + gamma_min,      eta = eta_max tanh(eta_raw),
// with one raw value per head and block of the group, gamma_raw and eta_raw (H, nb) as the
// reference code's JordanRoPE, and the shear coefficient a = eta (or eta / L for the families whose
// shear time is d / L). Blocks with lambda = 0 (PJ-rotary's affine sector) keep gamma = 0 through
// a mask (nb), shared by the heads. The jet mix (MATH 1.7.9) learns its coefficients
// c_r = jet_max tanh(raw): jet_raw (m-1, H, nb) for r >= 1 and, where the family says, jet0_raw
// (H, nb) for c_0 (else c_0 stays the family's, 1 by default). A learned c_0 that comes within
// kMinLearnedJet0 of zero is refused (NumericalRangeError): the query side's inverse jet divides
// by it (jordan_blocks.cpp jetInverse), as the reference code does without a guard.
#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <mutex>

#include "encodings/rotary_encoding.h"
#include "util/error.h"
#include "util/number_text.h"

namespace poslab {

namespace {
// The smallest |c_0| a learned jet mix may reach: its inverse jet grows as 1 / c_0^(m), and at
// 1e-3 a query feature is already scaled by 1e3 to 1e12 (orders 1 to 4).
constexpr double kMinLearnedJet0 = 1e-3;

// The largest |eta| / eta_max a run starts from: eta = eta_max tanh(raw) has no raw at the cap, so
// a start between 0.99 eta_max and the cap starts at 0.99 eta_max (MATH 2.3; past the cap it is
// refused). At 0.99 the gradient through tanh is already 0.02 of its value at 0.
constexpr double kMaxEtaFraction = 0.99;

class RotaryForm : public TrainableForm {
 public:
  RotaryForm(const RotaryEncoding& enc, const TrainableContext& ctx)
      : enc_(enc), layout_(enc.layout()) {
    const RotaryLearnables& r = enc.learnables();
    // A pure rotation (no decay, no shear, nothing learnable) can never overflow: skip the
    // per-forward precision check.
    isPureRotation_ = r.gammaGroup < 0 && r.etaGroup < 0;
    for (const auto& g : layout_.groups)
      isPureRotation_ =
          isPureRotation_ && !g.gamma.ne(0).any().item<bool>() && !g.shear.ne(0).any().item<bool>();
    etaMax_ = r.etaMax;
    gammaMin_ = r.gammaMin;
    heads_ = ctx.heads;
    shearPerEta_ = r.shearPerL ? 1.0 / enc.params().get("L") : 1.0;
    if (r.gammaGroup >= 0 && !ctx.pinned.count("gamma")) gammaGroup_ = r.gammaGroup;
    if (r.etaGroup >= 0 && !ctx.pinned.count("eta")) etaGroup_ = r.etaGroup;
    if (r.jetGroup >= 0 && !ctx.pinned.count("jet")) jetGroup_ = r.jetGroup;
    jetMax_ = r.jetMax;
    learnJet0_ = r.learnJet0;
    checkStart_ = ctx.checkStart;
  }

  std::vector<Learnable> learnables() const override {
    std::vector<Learnable> out;
    auto f64 = at::TensorOptions().dtype(at::kDouble);
    if (gammaGroup_ >= 0) {
      const JordanGroup& g = layout_.groups[gammaGroup_];
      out.push_back({"gamma_mask", (g.gamma != 0).logical_or(g.omega != 0).to(at::kDouble),
                     /*learned=*/false});
      std::vector<double> raw;  // (nb): the family's initial decay of each block
      auto gv = g.gamma.accessor<double, 1>();
      // A start below the floor gamma_min starts at it (MATH 2.3: pj-rotary's gamma = 0 does).
      for (long long b = 0; b < g.blocks; ++b) raw.push_back(inverseSoftplus(gv[b] - gammaMin_));
      out.push_back({"gamma_raw", perHeadCopy(at::tensor(raw, f64)), true, "gamma"});
    }
    if (etaGroup_ >= 0) {
      const JordanGroup& g = layout_.groups[etaGroup_];
      std::vector<double> raw;  // (nb): the family's initial shear of each block
      auto sv = g.shear.accessor<double, 1>();
      for (long long b = 0; b < g.blocks; ++b) {
        const double eta = sv[b] / shearPerEta_;
        checkStartBelowCap(eta);
        raw.push_back(std::atanh(std::clamp(eta / etaMax_, -kMaxEtaFraction, kMaxEtaFraction)));
      }
      out.push_back({"eta_raw", perHeadCopy(at::tensor(raw, f64)), true, "eta"});
    }
    if (jetGroup_ >= 0) {
      // raw = atanh(c / jetMax), clamped at 1 - 1e-6 as the reference's _atanh_clamped.
      const JordanGroup& g = layout_.groups[jetGroup_];
      auto raw = [&](const at::Tensor& c) {  // (nb) -> (H, nb)
        return perHeadCopy(at::atanh((c / jetMax_).clamp(-0.999999, 0.999999)));
      };
      if (learnJet0_) out.push_back({"jet0_raw", raw(g.jet.select(0, 0)), true, "jet"});
      std::vector<at::Tensor> rows;
      for (long long r = 1; r < g.order; ++r) rows.push_back(raw(g.jet.select(0, r)));
      out.push_back({"jet_raw", at::stack(rows, 0), true, "jet"});  // (m-1, H, nb)
    }
    return out;
  }

  TrainedScore score(const RawTensors& raw, const at::Tensor& q, const at::Tensor& k,
                     const at::Tensor& pos, bool allowFactorized) const override {
    const int64_t H = q.size(1);
    TrainedScore out;
    const Encoding* enc = &enc_;
    out.bias = [enc, H](const at::Tensor& qp, const at::Tensor& kp, at::ScalarType dtype) {
      return enc->bias(H, qp, kp, dtype);
    };
    const int64_t maxPos = pos.numel() ? pos.max().item<int64_t>() : 0;
    RotaryEncoding::ModelLayout model = enc_.modelLayout(maxPos + 1);
    JordanLayout layout = currentLayout(raw, model.layout);
    // The score is linear in q: a factor on s (YaRN's temperature past L) scales q.
    const at::Tensor qs = model.scoreFactor == 1.0 ? q : q * model.scoreFactor;
    bool factorized = allowFactorized && jordanHasFactorized(layout);
    if (factorized && !isPureRotation_) {
      factorized = jordanPrecision(layout, maxPos, q.scalar_type() != at::kDouble).ok;
    }
    if (factorized && isPureRotation_) {
      // Nothing learned: the rotation factors depend only on the positions, dtype and device.
      const JordanRotationFactors factors = rotationFactors(layout, pos, maxPos, q);
      FactorizedQK f = jordanFactorizeWith(layout, qs, k, pos, pos, factors);
      out.fq = f.q;
      out.fk = f.k;
      return out;
    }
    if (factorized) {
      FactorizedQK f = jordanFactorize(layout, qs, k, pos, pos);
      out.fq = f.q;
      out.fk = f.k;
      return out;
    }
    out.direct = [layout, qs, k, pos](int64_t q0, int64_t qn, int64_t k0, int64_t kn) {
      return jordanDirectScores(layout, qs.narrow(2, q0, qn), k.narrow(2, k0, kn),
                                pos.narrow(0, q0, qn), pos.narrow(0, k0, kn));
    };
    out.lagTerms = [layout, qs, k, pos] { return jordanLagWeightedTerms(layout, qs, k, pos); };
    return out;
  }

  std::map<std::string, std::vector<double>> snapshot(const RawTensors& raw) const override {
    std::map<std::string, std::vector<double>> out;
    JordanLayout layout = currentLayout(raw, layout_);
    // (H, nb) flattened head by head: entry h * nb + b is head h, block b.
    if (gammaGroup_ >= 0) out["gamma"] = tensorValues(layout.groups[gammaGroup_].gamma);
    if (etaGroup_ >= 0) out["eta"] = tensorValues(layout.groups[etaGroup_].shear / shearPerEta_);
    if (jetGroup_ >= 0) {
      const at::Tensor& jet = layout.groups[jetGroup_].jet;  // (m, H, nb)
      for (int64_t r = learnJet0_ ? 0 : 1; r < jet.size(0); ++r)
        out["jet" + std::to_string(r)] = tensorValues(jet.select(0, r));
    }
    return out;
  }

 private:
  // A start value the parameterisation cannot reach is refused, not moved (issue 31): an |eta|
  // past its cap eta_max.
  void checkStartBelowCap(double eta) const {
    if (checkStart_ && std::abs(eta) > etaMax_ * (1 + 1e-12))
      throw InvalidArgument("eta = " + formatNumber(eta) +
                                " is past the cap of the learned shear (eta = eta_max tanh(raw), " +
                                "eta_max = " + formatNumber(etaMax_) + ")",
                            "start eta within +-" + formatNumber(etaMax_) +
                                ", raise eta_max where the family has it, or pin eta");
  }

  // The rotation factors of a pure rotation at positions pos (T, int64, strictly increasing,
  // last = maxPos), from the cache when the last call had the same consecutive positions, dtype
  // and device (the model's training and evaluation forwards: one entry, replaced when they
  // change). The layout is a function of the positions (modelLayout), so they key it too.
  JordanRotationFactors rotationFactors(const JordanLayout& layout, const at::Tensor& pos,
                                        int64_t maxPos, const at::Tensor& q) const {
    const int64_t T = pos.numel();
    const int64_t first = T > 0 ? pos[0].item<int64_t>() : 0;
    if (T == 0 || maxPos - first != T - 1)  // not consecutive: no key that names them
      return jordanRotationFactors(layout, pos, q.scalar_type(), q.device());
    std::lock_guard<std::mutex> lock(cacheMutex_);
    if (!cache_.valid || cache_.first != first || cache_.length != T ||
        cache_.dtype != q.scalar_type() || cache_.device != q.device()) {
      cache_ = {true,       first,
                T,          q.scalar_type(),
                q.device(), jordanRotationFactors(layout, pos, q.scalar_type(), q.device())};
    }
    return cache_.factors;
  }

  // (nb) float64 -> (H, nb) float32: every head starts from the same per-block value.
  at::Tensor perHeadCopy(const at::Tensor& perBlock) const {
    return perBlock.unsqueeze(0).expand({heads_, perBlock.size(0)}).to(at::kFloat).contiguous();
  }

  // The layout at the current raw values: gamma and shear (H, nb) on the learned groups.
  JordanLayout currentLayout(const RawTensors& raw, const JordanLayout& from) const {
    JordanLayout layout = from;
    if (gammaGroup_ >= 0) {
      JordanGroup& g = layout.groups[gammaGroup_];
      g.gamma =
          (at::softplus(raw.at("gamma_raw").to(at::kDouble)) + gammaMin_) * raw.at("gamma_mask");
    }
    if (etaGroup_ >= 0) {
      JordanGroup& g = layout.groups[etaGroup_];
      g.shear = etaMax_ * at::tanh(raw.at("eta_raw").to(at::kDouble)) * shearPerEta_;
    }
    if (jetGroup_ >= 0) {
      JordanGroup& g = layout.groups[jetGroup_];
      at::Tensor c = jetMax_ * at::tanh(raw.at("jet_raw").to(at::kDouble));  // (m-1, H, nb)
      at::Tensor c0 = learnJet0_
                          ? jetMax_ * at::tanh(raw.at("jet0_raw").to(at::kDouble))
                          : g.jet.select(0, 0).to(c.device()).unsqueeze(0).expand({c.size(1), -1});
      if (learnJet0_) checkLearnedJet0(c0);
      g.jet = at::cat({c0.unsqueeze(0), c}, 0);  // (m, H, nb)
    }
    return layout;
  }

  const RotaryEncoding& enc_;
  JordanLayout layout_;  // the family's layout at its initial values
  bool isPureRotation_ = false;
  int gammaGroup_ = -1, etaGroup_ = -1;  // the groups learned here; -1: fixed or pinned
  int jetGroup_ = -1;                    // the group whose jet coefficients are learned
  double etaMax_ = 0.1, shearPerEta_ = 1.0, gammaMin_ = 1e-4, jetMax_ = 1.0;
  bool checkStart_ = false;  // TrainableContext::checkStart
  bool learnJet0_ = false;

  // c0 (H, nb): refused when any |c_0| < kMinLearnedJet0, naming the head and block.
  static void checkLearnedJet0(const at::Tensor& c0) {
    const at::Tensor magnitude = c0.detach().abs();
    const double smallest = magnitude.min().item<double>();
    if (!(smallest < kMinLearnedJet0)) return;
    const int64_t where = magnitude.flatten().argmin().item<int64_t>();
    const int64_t blocks = c0.size(1);
    throw NumericalRangeError(
        "the jet mix's learned c_0 of head " + std::to_string(where / blocks) + ", block " +
            std::to_string(where % blocks) + " is " +
            std::to_string(c0.flatten()[where].item<double>()) +
            ", within 1e-3 of zero: the query side divides by it (MATH 1.7.9)",
        "lower the learning rate, or keep c_0 fixed (learn_jet0 0)");
  }
  long long heads_ = 1;  // H: gamma_raw and eta_raw are (H, nb)
  struct RotationCache {
    bool valid = false;
    int64_t first = 0, length = 0;  // the positions first .. first + length - 1
    at::ScalarType dtype = at::kFloat;
    at::Device device = at::kCPU;
    JordanRotationFactors factors;
  };
  mutable std::mutex cacheMutex_;  // a model may be evaluated on one thread, trained on another
  mutable RotationCache cache_;
};
}  // namespace

std::unique_ptr<TrainableForm> RotaryEncoding::trainable(const TrainableContext& ctx) const {
  return std::make_unique<RotaryForm>(*this, ctx);
}

}  // namespace poslab
