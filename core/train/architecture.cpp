#include "train/architecture.h"

#include "util/error.h"

namespace poslab {

namespace {

// PosLab's own choices: the TrainConfig defaults (a modern small GPT).
void applyPoslab(TrainConfig& c) {
  const ModelConfig m;
  const OptimConfig o;
  c.model.norm = m.norm;
  c.model.mlpRatio = m.mlpRatio;
  c.model.bias = m.bias;
  c.model.tieEmbedding = m.tieEmbedding;
  c.model.init = m.init;
  c.model.answerLogits = m.answerLogits;
  c.model.includeSelf = m.includeSelf;
  c.optim.beta1 = o.beta1;
  c.optim.beta2 = o.beta2;
  c.optim.warmup = o.warmup;
  c.optim.schedule = o.schedule;
  c.optim.minLrRatio = o.minLrRatio;
  c.optim.decay = o.decay;
  c.optim.weightDecay = o.weightDecay;
  c.optim.gradClip = o.gradClip;
}

// What both references' code does alike: MLP 2x, PyTorch's default initialisation, the 2-logit
// answer, AdamW with PyTorch's betas at a constant learning rate from step 0, weight decay on
// every parameter, no position learning-rate multiplier.
void applyReferenceCommon(TrainConfig& c) {
  c.model.mlpRatio = 2;
  c.model.init = "pytorch";
  c.model.answerLogits = -1;
  c.optim.beta1 = 0.9;
  c.optim.beta2 = 0.999;
  c.optim.warmup = 0;
  c.optim.schedule = "constant";
  c.optim.decay = "all";
  c.optim.positionLrScale = 1;
}

// The Jordan-RoPE reference (jordan_rope/model.py CausalTransformerLM, scripts/run_kernel_lm.py
// with configs/kernel_lm.yaml): RMSNorm, bias-free linears, the head tied to the embedding and
// read at its first two logits; weight decay 0.01, gradient clip 1.
void applyJordanReference(TrainConfig& c) {
  applyReferenceCommon(c);
  c.model.norm = "rms";
  c.model.bias = false;
  c.model.tieEmbedding = true;
  c.model.includeSelf = true;
  c.optim.weightDecay = 0.01;
  c.optim.gradClip = 1.0;
}

// The PJ-RoPE reference (experiments/synthetic_query_lm.py QueryLMModel): LayerNorm, linears with
// biases, an untied 2-logit head on the last position, queries that do not attend to themselves
// (include_self=False); weight decay 1e-4, no gradient clipping.
void applyPjReference(TrainConfig& c) {
  applyReferenceCommon(c);
  c.model.norm = "layer";
  c.model.bias = true;
  c.model.tieEmbedding = false;
  c.model.includeSelf = false;
  c.optim.weightDecay = 1e-4;
  c.optim.gradClip = 0;
}

}  // namespace

const std::vector<Architecture>& architectures() {
  static const std::vector<Architecture> all = {
      {"poslab",
       "PosLab's small GPT: RMSNorm, biases, untied head over the vocabulary, MLP 4x, GPT-2 "
       "initialisation; AdamW (0.9, 0.98), warm-up then cosine, decay 0.01 on matrices, clip 1",
       applyPoslab},
      {"jordan-reference",
       "the Jordan-RoPE reference: RMSNorm, no biases, tied embedding, 2-logit answer, MLP 2x, "
       "PyTorch initialisation; AdamW (0.9, 0.999), constant lr, decay 0.01 on all, clip 1",
       applyJordanReference},
      {"pj-reference",
       "the PJ-RoPE reference: LayerNorm, biases, untied 2-logit head, MLP 2x, no self-attention "
       "to the query itself, PyTorch initialisation; AdamW (0.9, 0.999), constant lr, decay 1e-4 "
       "on all, no clipping",
       applyPjReference},
  };
  return all;
}

std::vector<std::string> architectureIds() {
  std::vector<std::string> ids;
  for (const Architecture& a : architectures()) ids.push_back(a.id);
  return ids;
}

void applyArchitecture(const std::string& id, TrainConfig& config) {
  for (const Architecture& a : architectures())
    if (a.id == id) return a.apply(config);
  std::string known;
  for (const std::string& k : architectureIds()) known += (known.empty() ? "" : ", ") + k;
  throw InvalidArgument("unknown architecture '" + id + "'", "known: " + known);
}

}  // namespace poslab
