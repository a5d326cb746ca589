// The trainable side of a family, behind the same seam as its formula (encoding.h).
//
// A family's TrainableForm owns its learnable parameters: their raw form and shapes (what the
// optimiser sees and checkpoints store), the map from raw to the constrained value its formula
// uses (softplus + floor, cap * tanh, softmax, clamp), their initial values, and the scores they
// give. The model (model/position_module.h) registers the raw tensors, hands them back on every
// forward and never asks which family it holds. Torch-free: only ATen tensors cross this seam.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace poslab {

// One tensor the family asks the model to hold: a parameter the optimiser learns or a buffer
// (masks, fixed frequencies, pinned parameters). The name is its key in checkpoints. `pin` is the
// family's declaration of the name that holds it fixed (ModelConfig::pinned, `--pin`): the form
// reads TrainableContext::pinned for it, and model/pin_check.h lists a family's pins from these
// declarations (no other table of pinnable names).
struct Learnable {
  std::string name;     // checkpoint key inside the position module, e.g. "gamma_raw"
  at::Tensor init;      // initial raw value; dtype and shape are the family's choice
  bool learned = true;  // false: registered as a buffer
  std::string pin;      // e.g. "gamma"; empty: no pin holds it (masks, PJ-bias's omega)
};

// The registered tensors by name, as the model holds them now (current values, its device).
using RawTensors = std::map<std::string, at::Tensor>;

// Full logits for a block of queries against a block of keys: (B, H, qn, kn), -inf where j > i.
using BlockScorer = std::function<at::Tensor(int64_t q0, int64_t qn, int64_t k0, int64_t kn)>;

// Additive bias b (H, Tq, Tk) in dtype for positions qPos (Tq), kPos (Tk) int64; an undefined
// tensor when the family has none. An empty BiasFn means no bias either.
using BiasFn =
    std::function<at::Tensor(const at::Tensor& qPos, const at::Tensor& kPos, at::ScalarType dtype)>;

// One term of a direct form that is a lag-weighted product (MATH 2.6):
//     s(i, j) += w(i - j) * sum_f fq[i, f] fk[j, f] e^(-decay_f (i - j)),       i >= j.
// The fused kernel (model/fused_attention.h) splits each decay between its tiles, so that the
// term is a product per tile instead of a re-run of the direct form.
struct LagWeightedTerm {
  at::Tensor fq, fk;  // (B, H, T, F): the query and key features without their decay
  at::Tensor decay;   // (Hg, F) float64, >= 0, per feature (Hg = 1 or H); undefined: none
  at::Tensor lag;     // (T) float64 w(d) for d = 0 .. T - 1, positions consecutive; undefined: 1
};

// What one forward needs from the family; blockScorer turns it into logits.
struct TrainedScore {
  // Factorized form: s = fq . fk, both (B, H, T, F) over all positions. Undefined: direct form.
  at::Tensor fq, fk;
  // Direct form: s for query rows [q0, q0 + qn) and key columns [k0, k0 + kn), (B, H, qn, kn),
  // 0 where j > i. Set when fq is undefined.
  std::function<at::Tensor(int64_t q0, int64_t qn, int64_t k0, int64_t kn)> direct;
  // The same direct form as a sum of lag-weighted products, built on demand (the fused kernel's
  // fast path). Unset, or returning none: the family has no such form (a jet mix, an absolute
  // shear time), only `direct`.
  std::function<std::vector<LagWeightedTerm>()> lagTerms;
  BiasFn bias;
};

// A part of the family's score that leave-one-out evaluation can switch off (PJ-bias's sectors
// at each jet order).
struct Ablation {
  std::string group;    // e.g. "FJ" or "LC"
  long long order = 0;  // e.g. the jet order r
};

// What the model tells a family when it builds the trainable form.
struct TrainableContext {
  long long heads = 1;           // H of the attention layer
  std::set<std::string> pinned;  // parameters held fixed, e.g. {"eta"} (ModelConfig::pinned)
  // A start value the parameterisation cannot hold (an eta past eta_max tanh's cap): false (the
  // model, the pin listing) starts from the nearest value it can hold (eta at 0.99 eta_max, MATH
  // 2.3); true makes learnables() refuse it (InvalidArgument), as checkTrainableStart
  // (model/pin_check.h) does for a user's setup before a run is built.
  bool checkStart = false;
};

class TrainableForm {
 public:
  virtual ~TrainableForm() = default;

  // The tensors to register, in registration order (that order is the checkpoint's).
  virtual std::vector<Learnable> learnables() const { return {}; }

  // Scores for q, k (B, H, T, hs) at positions pos (T, int64, q's device). allowFactorized: use
  // the factorized form when the family has one and q's dtype can hold it at these positions.
  virtual TrainedScore score(const RawTensors& raw, const at::Tensor& q, const at::Tensor& k,
                             const at::Tensor& pos, bool allowFactorized) const = 0;

  // Constrained values by name ("gamma", "eta", "gate_FJ", "delta_mean", ...), one entry per
  // block or head, for the live plots and run reports.
  virtual std::map<std::string, std::vector<double>> snapshot(const RawTensors& raw) const {
    return {};
  }

  virtual std::vector<Ablation> ablations() const { return {}; }
  // Multiplies ablation `index` (of ablations()) by keep: 0 switches it off, 1 restores it.
  virtual void setAblation(const RawTensors& raw, size_t index, double keep) const;
};

// The one final logit step, for the explorer (attentionLogits) and the model alike:
// scale * s + b(qPos, kPos), -inf where j > i. s (B, H, Tq, Tk); qPos (Tq), kPos (Tk) int64.
at::Tensor finishLogits(const at::Tensor& s, double scale, const BiasFn& bias,
                        const at::Tensor& qPos, const at::Tensor& kPos);

// Full causal logits from a family's scores: factorized (the scale folded into the (T, F) query
// side, not the (T, T) scores) or direct, then finishLogits. q, k (B, H, T, hs); pos (T) int64.
BlockScorer blockScorer(TrainedScore score, double scale, const at::Tensor& pos);

// A tensor's values as doubles, flattened (for snapshots).
std::vector<double> tensorValues(const at::Tensor& t);

// MATH 2.3 parameterisations share these: y = softplus(raw) inverted, for y > 0.
double inverseSoftplus(double y);

}  // namespace poslab
