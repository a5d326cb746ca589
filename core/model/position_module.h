// The trainable side of a position family: owns its learnable parameters (MATH 2.3 with their
// parameterisations) and scores blocks of attention logits through the one seam of encoding.h.
//   Jordan gamma = softplus(raw) + 1e-4, eta = eta_max tanh(raw) (eta_max 0.1, or 1 in d/L units);
//   PJ-bias gates = softmax over enabled sectors, alpha = softmax over orders, zeta free,
//   kappa = softplus(raw), slope = softplus(raw); PoPE delta clamped to [-2 pi, 0].
#pragma once

#include <torch/torch.h>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "encodings/encoding.h"
#include "encodings/jordan_blocks.h"
#include "encodings/pj_kernel.h"
#include "model/model_config.h"

namespace poslab {

// Full logits for a block of queries against a block of keys: (B, H, qn, kn), -inf where j > i.
using BlockScorer = std::function<at::Tensor(int64_t q0, int64_t qn, int64_t k0, int64_t kn)>;

// Family parameters as the model uses them: the user's overrides, plus heads / head_dim from the
// model, L = trainLength, and the initial gamma = 1e-4, eta = 0 (MATH 2.3) where the user set none.
std::map<std::string, double> resolvedFamilyParams(const ModelConfig& cfg, long long trainLength);

class PositionModuleImpl : public torch::nn::Module {
 public:
  PositionModuleImpl(const ModelConfig& cfg, long long trainLength);

  // q, k (B, H, T, hs); pos (T) int64 on q's device. allowFactorized: use the factorized form when
  // the family has one and q's dtype can hold it at these positions; otherwise the direct form.
  BlockScorer scorer(const at::Tensor& q, const at::Tensor& k, const at::Tensor& pos,
                     bool allowFactorized) const;

  // Current values of the position parameters, by name ("gamma", "eta", "gate_FJ", "mass_FJ1",
  // "delta_mean", ...), one entry per block or head.
  std::map<std::string, std::vector<double>> snapshot() const;

  // PJ-bias only: multiply alpha of (sector, order) by `keep` (0 zeroes the order, for LOO).
  void setOrderMask(PjSector sector, long long order, double keep);
  bool isPjBias() const { return kind_ == Kind::PjBias; }
  // PJ-bias only: the current coefficients.
  PjTensors pjTensors() const;
  const PjShape& pjShape() const { return pjShape_; }

  const Encoding& encoding() const { return *encoding_; }

 private:
  enum class Kind { Rotary, Content, PjBias, Pope };
  JordanLayout currentLayout() const;

  Kind kind_ = Kind::Content;
  std::unique_ptr<Encoding> encoding_;
  std::set<std::string> pinned_;
  // Rotary
  JordanLayout staticLayout_;
  bool isPureRotation_ = false;
  int gammaGroup_ = -1, etaGroup_ = -1;
  double etaMax_ = 0.1, shearPerEta_ = 1.0;
  torch::Tensor gammaRaw_, etaRaw_, gammaMask_;
  // PJ-bias
  PjShape pjShape_;
  torch::Tensor gateLogits_, gateEnabled_, alphaFjLogits_, alphaLcLogits_, zetaFj_, zetaLc_,
      kappaRaw_, slopeRaw_, omega_, orderMask_;
  PjTensors pjStatic_;
  // PoPE
  std::vector<double> popeTheta_;
  torch::Tensor delta_;
};
TORCH_MODULE(PositionModule);

}  // namespace poslab
