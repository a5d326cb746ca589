#include "model/position_module.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "encodings/pj_bias.h"
#include "encodings/pope.h"
#include "encodings/registry.h"
#include "encodings/rotary_encoding.h"
#include "util/error.h"

namespace poslab {

namespace {
constexpr double kGammaMin = 1e-4;   // MATH 2.3: gamma = softplus(raw) + gamma_min
constexpr double kGammaInit = 1e-4;  // MATH 2.3: initial gamma
constexpr double kEtaInit = 0.0;     // MATH 2.3: initial eta

double inverseSoftplus(double y) {
  y = std::max(y, 1e-8);
  return y > 30 ? y : std::log(std::expm1(y));
}

bool familyHas(const std::string& family, const std::string& param) {
  for (const auto& p : familyInfo(family).params)
    if (p.name == param) return true;
  return false;
}

// Which group of the family's layout learns gamma / eta, and the shear per unit eta.
struct RotaryLearnables {
  int gammaGroup = -1;
  int etaGroup = -1;
  double etaMax = 0.1;
  bool shearPerL = false;  // shear coefficient = eta / L
};
RotaryLearnables rotaryLearnables(const std::string& id) {
  if (id == "damped-rope") return {0, -1, 0.1, false};
  if (id == "direct-sum") return {2, -1, 0.1, false};
  if (id == "jordan-exact" || id == "jordan-stabilized" || id == "jordan-stabilized-abs" ||
      id == "jordan-m3" || id == "jordan-m4")
    return {0, 0, 0.1, false};
  if (id == "jordan-scaled") return {-1, 0, 1.0, true};
  if (id == "pj-rotary") return {0, 0, 1.0, true};
  return {};  // RoPE and its variants: nothing to learn
}
}  // namespace

std::map<std::string, double> resolvedFamilyParams(const ModelConfig& cfg, long long trainLength) {
  std::map<std::string, double> p = cfg.familyParams;
  const auto& f = cfg.family;
  if (familyHas(f, "heads")) p["heads"] = static_cast<double>(cfg.heads);
  p["head_dim"] = static_cast<double>(cfg.headDim());
  if (familyHas(f, "L") && !p.count("L")) p["L"] = static_cast<double>(trainLength);
  if (familyHas(f, "gamma") && !p.count("gamma")) p["gamma"] = kGammaInit;
  if (familyHas(f, "eta") && !p.count("eta")) p["eta"] = kEtaInit;
  return p;
}

PositionModuleImpl::PositionModuleImpl(const ModelConfig& cfg, long long trainLength)
    : pinned_(cfg.pinned.begin(), cfg.pinned.end()) {
  encoding_ = makeEncoding(cfg.family, resolvedFamilyParams(cfg, trainLength));
  const auto& id = cfg.family;
  const ParamSet& params = encoding_->params();
  auto f64 = torch::TensorOptions().dtype(torch::kFloat64);

  if (const auto* rotary = dynamic_cast<const RotaryEncoding*>(encoding_.get())) {
    kind_ = Kind::Rotary;
    staticLayout_ = rotary->layout();
    const RotaryLearnables r = rotaryLearnables(id);
    // A pure rotation (no decay, no shear, nothing learnable) can never overflow: skip the
    // per-forward precision check.
    isPureRotation_ = r.gammaGroup < 0 && r.etaGroup < 0;
    for (const auto& g : staticLayout_.groups)
      isPureRotation_ =
          isPureRotation_ && !g.gamma.ne(0).any().item<bool>() && !g.shear.ne(0).any().item<bool>();
    etaMax_ = r.etaMax;
    shearPerEta_ = r.shearPerL ? 1.0 / params.get("L") : 1.0;
    if (r.gammaGroup >= 0 && !pinned_.count("gamma")) {
      gammaGroup_ = r.gammaGroup;
      const JordanGroup& g = staticLayout_.groups[gammaGroup_];
      // Blocks with lambda = 0 (PJ-rotary's affine sector) keep gamma = 0.
      gammaMask_ = register_buffer("gamma_mask",
                                   (g.gamma != 0).logical_or(g.omega != 0).to(torch::kFloat64));
      std::vector<double> raw;
      auto gv = g.gamma.accessor<double, 1>();
      for (long long b = 0; b < g.blocks; ++b) raw.push_back(inverseSoftplus(gv[b] - kGammaMin));
      gammaRaw_ = register_parameter("gamma_raw", torch::tensor(raw, f64).to(torch::kFloat32));
    }
    if (r.etaGroup >= 0 && !pinned_.count("eta")) {
      etaGroup_ = r.etaGroup;
      const JordanGroup& g = staticLayout_.groups[etaGroup_];
      std::vector<double> raw;
      auto sv = g.shear.accessor<double, 1>();
      for (long long b = 0; b < g.blocks; ++b) {
        const double eta = std::clamp(sv[b] / shearPerEta_ / etaMax_, -0.99, 0.99);
        raw.push_back(std::atanh(eta));
      }
      etaRaw_ = register_parameter("eta_raw", torch::tensor(raw, f64).to(torch::kFloat32));
    }
  } else if (id == "pj-bias") {
    kind_ = Kind::PjBias;
    pjShape_ = pjShapeFromParams(params);
    auto heads = pjHeadsFromParams(params);
    pjStatic_ = pjTensorsFromHeads(heads, pjShape_.order);
    const long long H = static_cast<long long>(heads.size()), R1 = pjShape_.order + 1;
    gateEnabled_ = register_buffer("gate_enabled", (pjStatic_.gates > 0).to(torch::kFloat32));
    omega_ = register_buffer("omega", pjStatic_.omega.to(torch::kFloat32));
    orderMask_ = register_buffer("order_mask", torch::ones({2, R1}));
    auto param = [&](const char* pinName, const char* name, at::Tensor init) {
      init = init.to(torch::kFloat32);
      if (pinned_.count(pinName)) return register_buffer(name, init);
      return register_parameter(name, init);
    };
    gateLogits_ = param("gates", "gate_logits", at::log(pjStatic_.gates.clamp_min(1e-12)));
    alphaFjLogits_ = param("orders", "alpha_fj_logits", torch::zeros({H, R1}, f64));
    alphaLcLogits_ = param("orders", "alpha_lc_logits", torch::zeros({H, R1}, f64));
    zetaFj_ = param("coefficients", "zeta_fj", pjStatic_.zetaFj);
    zetaLc_ = param("coefficients", "zeta_lc", pjStatic_.zetaLc);
    auto invSoftplus = [](const at::Tensor& y) { return at::log(at::expm1(y.clamp_min(1e-8))); };
    kappaRaw_ = param("kappa", "kappa_raw", invSoftplus(pjStatic_.kappa));
    slopeRaw_ = param("slope", "slope_raw", invSoftplus(pjStatic_.slope));
  } else if (id == "pope") {
    kind_ = Kind::Pope;
    popeTheta_ = popeFrequencies(encoding_->headDim(), params.get("base"));
    at::Tensor init = torch::full({cfg.heads, encoding_->headDim()}, params.get("delta"));
    delta_ =
        pinned_.count("delta") ? register_buffer("delta", init) : register_parameter("delta", init);
  } else {
    kind_ = Kind::Content;
  }
}

JordanLayout PositionModuleImpl::currentLayout() const {
  JordanLayout layout = staticLayout_;
  if (gammaRaw_.defined()) {
    JordanGroup& g = layout.groups[gammaGroup_];
    g.gamma = (torch::softplus(gammaRaw_.to(torch::kFloat64)) + kGammaMin) * gammaMask_;
  }
  if (etaRaw_.defined()) {
    JordanGroup& g = layout.groups[etaGroup_];
    g.shear = etaMax_ * torch::tanh(etaRaw_.to(torch::kFloat64)) * shearPerEta_;
  }
  return layout;
}

PjTensors PositionModuleImpl::pjTensors() const {
  PjTensors t;
  at::Tensor gl = gateLogits_.masked_fill(gateEnabled_ == 0, -1e30);
  t.gates = torch::softmax(gl, -1);
  t.alphaFj = torch::softmax(alphaFjLogits_, -1) * orderMask_[0];
  t.alphaLc = torch::softmax(alphaLcLogits_, -1) * orderMask_[1];
  t.zetaFj = zetaFj_;
  t.zetaLc = zetaLc_;
  t.kappa = torch::softplus(kappaRaw_);
  t.slope = torch::softplus(slopeRaw_);
  t.omega = omega_;
  return t;
}

void PositionModuleImpl::setOrderMask(PjSector sector, long long order, double keep) {
  if (kind_ != Kind::PjBias) throw Error("order masks exist only for pj-bias");
  if (sector == PjSector::Affine) throw InvalidArgument("the affine sector has no orders");
  torch::NoGradGuard guard;
  orderMask_[sector == PjSector::FJ ? 0 : 1][order] = keep;
}

BlockScorer PositionModuleImpl::scorer(const at::Tensor& q, const at::Tensor& k,
                                       const at::Tensor& pos, bool allowFactorized) const {
  const double scale = encoding_->scoreScale();
  const int64_t H = q.size(1);
  auto finish = [pos, H, this](at::Tensor s, double sc, int64_t q0, int64_t qn, int64_t k0,
                               int64_t kn) {
    at::Tensor qp = pos.narrow(0, q0, qn), kp = pos.narrow(0, k0, kn);
    at::Tensor logits = sc == 1.0 ? s : s * sc;
    if (kind_ == Kind::PjBias) {
      at::Tensor d = (qp.unsqueeze(1) - kp.unsqueeze(0)).to(s.scalar_type());
      logits = logits + pjBiasFromTensors(pjShape_, pjTensors(), d).unsqueeze(0);
    } else {
      at::Tensor b = encoding_->bias(H, qp, kp, s.scalar_type());
      if (b.defined()) logits = logits + b.unsqueeze(0);
    }
    at::Tensor future = qp.unsqueeze(1) < kp.unsqueeze(0);
    return logits.masked_fill(future, -INFINITY);
  };

  if (kind_ == Kind::Rotary) {
    JordanLayout layout = currentLayout();
    bool factorized = allowFactorized && jordanHasFactorized(layout);
    if (factorized && !isPureRotation_) {
      const int64_t maxPos = pos.numel() ? pos.max().item<int64_t>() : 0;
      factorized = jordanPrecision(layout, maxPos, q.scalar_type() != at::kDouble).ok;
    }
    if (factorized) {
      FactorizedQK f = jordanFactorize(layout, q, k, pos, pos);
      at::Tensor fq = f.q * scale;  // scale the (T, hs) side, not the (T, T) scores
      at::Tensor fk = f.k;
      return [fq, fk, finish](int64_t q0, int64_t qn, int64_t k0, int64_t kn) {
        at::Tensor s = at::matmul(fq.narrow(2, q0, qn), fk.narrow(2, k0, kn).transpose(-1, -2));
        return finish(s, 1.0, q0, qn, k0, kn);
      };
    }
    return [layout, q, k, pos, finish, scale](int64_t q0, int64_t qn, int64_t k0, int64_t kn) {
      at::Tensor s = jordanDirectScores(layout, q.narrow(2, q0, qn), k.narrow(2, k0, kn),
                                        pos.narrow(0, q0, qn), pos.narrow(0, k0, kn));
      return finish(s, scale, q0, qn, k0, kn);
    };
  }
  at::Tensor fq = q, fk = k;
  if (kind_ == Kind::Pope) {
    fq = popeTransform(q, pos, popeTheta_, at::Tensor());
    fk = popeTransform(k, pos, popeTheta_, delta_.clamp(-2 * M_PI, 0.0));
  }
  fq = fq * scale;
  return [fq, fk, finish](int64_t q0, int64_t qn, int64_t k0, int64_t kn) {
    at::Tensor s = at::matmul(fq.narrow(2, q0, qn), fk.narrow(2, k0, kn).transpose(-1, -2));
    return finish(s, 1.0, q0, qn, k0, kn);
  };
}

std::map<std::string, std::vector<double>> PositionModuleImpl::snapshot() const {
  std::map<std::string, std::vector<double>> out;
  auto values = [](const at::Tensor& t) {
    at::Tensor c = t.detach().to(at::kCPU, at::kDouble).contiguous().flatten();
    return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
  };
  if (kind_ == Kind::Rotary) {
    JordanLayout layout = currentLayout();
    if (gammaGroup_ >= 0) out["gamma"] = values(layout.groups[gammaGroup_].gamma);
    if (etaGroup_ >= 0) out["eta"] = values(layout.groups[etaGroup_].shear / shearPerEta_);
  } else if (kind_ == Kind::PjBias) {
    PjTensors t = pjTensors();
    out["gate_FJ"] = values(t.gates.select(1, 0));
    out["gate_affine"] = values(t.gates.select(1, 1));
    out["gate_LC"] = values(t.gates.select(1, 2));
    out["kappa"] = values(t.kappa);
    out["slope"] = values(t.slope);
    // Effective mass per sector and order, averaged over heads (MATH 2.3, 4.2.1).
    at::Tensor zf = t.zetaFj.norm(2, -1), zl = t.zetaLc.norm(2, -1);  // (H, R+1)
    at::Tensor mFj = (t.gates.select(1, 0).unsqueeze(1) * t.alphaFj * zf).mean(0);
    at::Tensor mLc = (t.gates.select(1, 2).unsqueeze(1) * t.alphaLc * zl).mean(0);
    for (long long r = 0; r <= pjShape_.order; ++r) {
      out["mass_FJ" + std::to_string(r)] = {mFj[r].item<double>()};
      out["mass_LC" + std::to_string(r)] = {mLc[r].item<double>()};
    }
    out["mass_affine"] = {(t.gates.select(1, 1) * t.slope).mean().item<double>()};
  } else if (kind_ == Kind::Pope) {
    out["delta_mean"] = values(delta_.clamp(-2 * M_PI, 0.0).mean(1));
  }
  return out;
}

}  // namespace poslab
