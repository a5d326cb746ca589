// PoPE, polar coordinate positional embedding (docs/MATH.md 1.9). All D components are frequencies,
// theta_c = base^(-c/D); magnitudes from content, mu = softplus(x_c); phases from position only:
//     s(t, u) = sum_c mu_q(t,c) mu_k(u,c) cos((t - u) theta_c - delta_c),  delta_c in [-2 pi, 0].
// Factorized: q' = [mu_q cos(t theta), mu_q sin(t theta)], k' = [mu_k cos(u theta + delta),
// mu_k sin(u theta + delta)] (2D reals each). The phase never depends on content: no what-where
// entanglement. The direct form is the same unit-phase product taken per key chunk.
#include <ATen/ATen.h>

#include <cmath>

#include "encodings/pope.h"

#include "encodings/common_params.h"
#include "encodings/families.h"
#include "util/error.h"

namespace poslab {

std::vector<double> popeFrequencies(long long D, double base) {
  std::vector<double> theta;
  for (long long c = 0; c < D; ++c) theta.push_back(std::pow(base, -static_cast<double>(c) / D));
  return theta;
}

at::Tensor popeTransform(const at::Tensor& x, const at::Tensor& pos,
                         const std::vector<double>& theta, const at::Tensor& delta) {
  auto opts = at::TensorOptions().dtype(at::kDouble);
  at::Tensor angle = pos.to(at::kDouble).unsqueeze(1) *
                     at::tensor(theta, opts).to(pos.device()).unsqueeze(0);  // (T, D)
  at::Tensor a = angle.to(x.device()).to(x.scalar_type()).unsqueeze(0);      // (1, T, D)
  if (delta.defined()) a = a + delta.to(x.scalar_type()).unsqueeze(1);       // (H, T, D)
  at::Tensor mu = at::softplus(x);
  return at::cat({mu * a.cos(), mu * a.sin()}, -1);
}

namespace {
double softplus(double x) {
  return x > 30 ? x : std::log1p(std::exp(x));
}

class Pope : public Encoding {
 public:
  Pope(const FamilyInfo& info, ParamSet p) : Encoding(info, std::move(p)) {
    const long long D = headDim();
    theta_ = popeFrequencies(D, params().get("base"));
    delta_.assign(D, params().get("delta"));
  }

  LagBasis basis(const std::vector<double>& lags) const override {
    LagBasis b;
    b.lags = lags;
    b.kernel.assign(lags.size(), 0.0);
    for (size_t c = 0; c < theta_.size(); ++c) {
      std::vector<double> cs(lags.size()), sn(lags.size());
      for (size_t n = 0; n < lags.size(); ++n) {
        cs[n] = std::cos(theta_[c] * lags[n]);
        sn[n] = std::sin(theta_[c] * lags[n]);
        b.kernel[n] += std::cos(theta_[c] * lags[n] - delta_[c]) / theta_.size();
      }
      b.add("cos_" + std::to_string(c), std::move(cs));
      b.add("sin_" + std::to_string(c), std::move(sn));
    }
    return b;
  }

  // The component whose theta_c is nearest to omega: {cos, sin}.
  LagBasis probeBasis(const std::vector<double>& lags, double omega) const override {
    size_t best = 0;
    for (size_t c = 1; c < theta_.size(); ++c)
      if (std::abs(theta_[c] - omega) < std::abs(theta_[best] - omega)) best = c;
    LagBasis full = basis(lags);
    LagBasis b;
    b.lags = lags;
    b.add(full.names[2 * best], full.columns[2 * best]);
    b.add(full.names[2 * best + 1], full.columns[2 * best + 1]);
    return b;
  }

  bool hasFactorized() const override { return true; }

  FactorizedQK factorize(const at::Tensor& q, const at::Tensor& k, const at::Tensor& qPos,
                         const at::Tensor& kPos) const override {
    return {side(q, qPos, /*isKey=*/false), side(k, kPos, /*isKey=*/true)};
  }

  at::Tensor directScores(const at::Tensor& q, const at::Tensor& k, const at::Tensor& qPos,
                          const at::Tensor& kPos) const override {
    at::Tensor s = at::matmul(side(q, qPos, false), side(k, kPos, true).transpose(-1, -2));
    at::Tensor future = (qPos.unsqueeze(1) < kPos.unsqueeze(0)).to(q.device());
    return s.masked_fill(future, 0.0);
  }

  std::unique_ptr<TrainableForm> trainable(const TrainableContext& ctx) const override;

  // ||x'||^2 = sum_c softplus(x_c)^2 (cos^2 + sin^2) on both sides, at every position.
  double featureLogNormGain(const std::vector<double>& x, long long, bool) const override {
    double mu = 0, xNormSq = 0;
    for (double v : x) {
      mu += softplus(v) * softplus(v);
      xNormSq += v * v;
    }
    return std::log(mu) - std::log(xNormSq);
  }

  double referenceLogit(const double* q, const double* k, long long t, long long u,
                        long long) const override {
    double s = 0;
    for (size_t c = 0; c < theta_.size(); ++c) {
      s += softplus(q[c]) * softplus(k[c]) *
           std::cos(static_cast<double>(t - u) * theta_[c] - delta_[c]);
    }
    return s / std::sqrt(static_cast<double>(headDim()));
  }

 private:
  // x (B, H, T, D) -> (B, H, T, 2D); the same delta in every head.
  at::Tensor side(const at::Tensor& x, const at::Tensor& pos, bool isKey) const {
    at::Tensor delta;
    if (isKey)
      delta = at::tensor(delta_, at::TensorOptions().dtype(at::kDouble))
                  .unsqueeze(0)
                  .expand({x.size(1), -1});
    return popeTransform(x, pos, theta_, delta);
  }

  std::vector<double> theta_, delta_;
};

// The trainable form: delta (H, D), one phase bias per head and component, used clamped to
// [-2 pi, 0] (MATH 2.3); pinned: a buffer. Always factorized (the phase is bounded).
class PopeForm : public TrainableForm {
 public:
  PopeForm(const Encoding& enc, const TrainableContext& ctx)
      : enc_(enc),
        theta_(popeFrequencies(enc.headDim(), enc.params().get("base"))),
        heads_(ctx.heads),
        learned_(!ctx.pinned.count("delta")) {}

  std::vector<Learnable> learnables() const override {
    return {{"delta",
             at::full({heads_, enc_.headDim()}, enc_.params().get("delta"),
                      at::TensorOptions().dtype(at::kFloat)),
             learned_, "delta"}};
  }

  TrainedScore score(const RawTensors& raw, const at::Tensor& q, const at::Tensor& k,
                     const at::Tensor& pos, bool) const override {
    TrainedScore out;
    out.fq = popeTransform(q, pos, theta_, at::Tensor());
    out.fk = popeTransform(k, pos, theta_, delta(raw));
    out.bias = enc_.biasFn(q.size(1));
    return out;
  }

  std::map<std::string, std::vector<double>> snapshot(const RawTensors& raw) const override {
    return {{"delta_mean", tensorValues(delta(raw).mean(1))}};
  }

 private:
  static at::Tensor delta(const RawTensors& raw) {  // (H, D)
    return raw.at("delta").clamp(-2 * M_PI, 0.0);
  }

  const Encoding& enc_;
  std::vector<double> theta_;
  long long heads_;
  bool learned_;
};

std::unique_ptr<TrainableForm> Pope::trainable(const TrainableContext& ctx) const {
  return std::make_unique<PopeForm>(*this, ctx);
}
}  // namespace

const FamilyInfo& PopeInfo() {
  static const FamilyInfo info{
      "pope",
      "PoPE (polar coordinates)",
      "s(t,u) = Σ_c μ_q μ_k cos((t−u)θ_c − δ_c),  μ = softplus(x),  θ_c = base^{−c/D}",
      "Polar coordinate position embedding: content sets only the magnitudes, position only the "
      "phases, over all D components. RoPE's what-where entanglement (a content-dependent phase) "
      "is gone by construction, which is what lets it solve indirect indexing.",
      {common::base(),
       {"delta", 0, -2 * M_PI, 0, false, "phase bias delta_c (learnable per head and component)"},
       common::headDim()},
      /*sectorParams=*/std::nullopt,
      // The explorer has one phase bias for every component: the learned mean over them.
      /*learnedShows=*/{{"delta_mean", "delta"}}};
  return info;
}

std::unique_ptr<Encoding> makePope(ParamSet p) {
  return std::make_unique<Pope>(PopeInfo(), std::move(p));
}

}  // namespace poslab
