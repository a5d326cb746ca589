// The trainable side of a position family as a torch module: it registers the raw tensors the
// family's TrainableForm (encodings/trainable.h) asks for, under the family's names, and scores
// blocks of attention logits with them. It knows no family: each family owns its learnable
// parameterisation next to its formula in encodings/.
#pragma once

#include <torch/torch.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "encodings/encoding.h"
#include "model/model_config.h"

namespace poslab {

// Family parameters as the model uses them: the user's overrides, plus heads / head_dim from the
// model, L = trainLength, and each parameter's trainedInit (MATH 2.3: gamma = 1e-4, eta = 0) where
// the user set none.
std::map<std::string, double> resolvedFamilyParams(const ModelConfig& cfg, long long trainLength);

class PositionModuleImpl : public torch::nn::Module {
 public:
  PositionModuleImpl(const ModelConfig& cfg, long long trainLength);

  // q, k (B, H, T, hs); pos (T) int64 on q's device. allowFactorized: use the factorized form when
  // the family has one and q's dtype can hold it at these positions; otherwise the direct form.
  BlockScorer scorer(const at::Tensor& q, const at::Tensor& k, const at::Tensor& pos,
                     bool allowFactorized) const;

  // The family's scores for one forward, for the fused kernel (model/fused_attention.h): the
  // same TrainedScore the scorer above is built from, and the scale it applies to s.
  TrainedScore trainedScore(const at::Tensor& q, const at::Tensor& k, const at::Tensor& pos,
                            bool allowFactorized) const;
  double scoreScale() const { return encoding_->scoreScale(); }

  // Current values of the position parameters, by name ("gamma", "eta", "gate_FJ", "mass_FJ1",
  // "delta_mean", ...), one entry per block or head.
  std::map<std::string, std::vector<double>> snapshot() const;

  // Parts of the score that leave-one-out evaluation can switch off (PJ-bias: each sector and
  // order); empty for most families.
  std::vector<Ablation> ablations() const;
  // Multiplies ablations()[index] by keep: 0 switches it off, 1 restores it.
  void setAblation(size_t index, double keep);

  const Encoding& encoding() const { return *encoding_; }

 private:
  std::unique_ptr<Encoding> encoding_;
  std::unique_ptr<TrainableForm> form_;
  RawTensors raw_;  // the registered parameters and buffers, by their checkpoint names
};
TORCH_MODULE(PositionModule);

}  // namespace poslab
