// The tiny pre-norm causal transformer of docs/MATH.md 2.1, plain and top to bottom:
// token embedding (no absolute positions) -> layers x [norm -> causal attention with the position
// family -> residual -> norm -> MLP (GELU, mlp_ratio x) -> residual] -> final norm -> linear head
// (or the tied embedding). Biases, tying, initialisation, the answer logits and whether a query
// sees itself are ModelConfig options (train/architecture.h names the references' choices).
#pragma once

#include <torch/torch.h>

#include <array>
#include <set>
#include <utility>
#include <vector>

#include "model/fused_attention.h"
#include "model/model_config.h"
#include "model/position_module.h"

namespace poslab {

// RMSNorm (LibTorch 1.13 has none): x / sqrt(mean(x^2) + eps) * weight.
struct RMSNormImpl : torch::nn::Module {
  explicit RMSNormImpl(int64_t dim);
  torch::Tensor forward(const torch::Tensor& x);  // (..., C) -> (..., C)
  torch::Tensor weight;
};
TORCH_MODULE(RMSNorm);

// Softmax attention over j <= i, computed from a BlockScorer. For T <= block it materialises the
// (B, H, T, T) weights; beyond, it streams over key chunks with an online softmax so that memory
// is O(T * block). v (B, H, T, hs) -> (B, H, T, hs). weightsOut: filled with (B, H, T, T) when
// non-null (only for T <= block).
torch::Tensor causalAttention(const BlockScorer& scorer, const torch::Tensor& v, int64_t block,
                              torch::Tensor* weightsOut = nullptr);

struct AttentionImpl : torch::nn::Module {
  AttentionImpl(const ModelConfig& cfg, long long trainLength);
  // x (B, T, C), pos (T) -> (B, T, C)
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& pos);
  // The raw projections before the position family: x (B, T, C) -> q, k, v, each (B, H, T, hs).
  // forward() scores exactly these; diagnostics read them (analysis/pope_frequency_usage.h).
  std::array<torch::Tensor, 3> project(const torch::Tensor& x);
  // ModelConfig::freezeQk: the query and key rows of qkv (its first 2 C outputs, weight and
  // bias) set to 0 and their gradient zeroed by a hook, so that they stay 0 under AdamW (decay of
  // 0 is 0) and every logit is the position bias alone (the PJ reference's --freeze-qk).
  void freezeQueryKey();
  int64_t heads, headSize;
  bool includeSelf = true;  // ModelConfig::includeSelf: false masks key j == i
  torch::nn::Linear qkv{nullptr}, proj{nullptr};
  PositionModule position{nullptr};
  // Set by the model before a forward pass.
  bool allowFactorized = true;
  int64_t block = 1024;  // reference path: key chunk of the streaming softmax
  bool recordWeights = false;
  // kReference: causalAttention on the BlockScorer; the others model/fused_attention.h with tiles
  // of fusedTile (model/attention_path.h). Recording weights always takes the reference path.
  AttentionPath path = AttentionPath::kFused;
  int64_t fusedTile = kFusedAttentionTile;
  torch::Tensor lastWeights;  // (B, H, T, T) when recordWeights
};
TORCH_MODULE(Attention);

struct BlockImpl : torch::nn::Module {
  BlockImpl(const ModelConfig& cfg, long long trainLength);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& pos);  // (B, T, C)
  torch::nn::AnyModule norm1, norm2;
  Attention attn{nullptr};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Block);

struct TinyTransformerImpl : torch::nn::Module {
  TinyTransformerImpl(const ModelConfig& cfg, long long trainLength);
  // tokens (B, T) int64 -> logits (B, T, outputLogits())
  torch::Tensor forward(const torch::Tensor& tokens);
  // The logits per position: config.answerLogits when set (the first n tokens), else the vocab.
  int64_t outputLogits() const;
  // Attention options for the next forward passes (evaluation at long lengths streams).
  void configureAttention(bool allowFactorized, int64_t block, bool recordWeights);
  // The attention path of the next forward passes (a Trainer sets its run's RunConfig::attention);
  // tile: the fused kernel's tile edge. A new model starts on defaultAttentionPathName().
  void useAttentionPath(AttentionPath path, int64_t tile = kFusedAttentionTile);
  // useAttentionPath(kFused or kReference, tile).
  void useFusedAttention(bool fused, int64_t tile = kFusedAttentionTile);
  // true: training forwards keep only each block's input and run the block again in the
  // backward (model/recompute.h; RunConfig::recomputeActivations). Same values and gradients,
  // one block's activations in memory at a time, about one more forward pass of compute.
  bool recomputeBlocks = false;
  // Each layer's raw queries and keys (AttentionImpl::project of its normed input) on tokens
  // (B, T) int64: one {q, k} per layer, each (B, H, T, hs). Runs the blocks as forward() does.
  std::vector<std::pair<torch::Tensor, torch::Tensor>> layerQueriesKeys(
      const torch::Tensor& tokens);
  // (B, H, T, T) weights of each layer from the last forward with recordWeights.
  std::vector<torch::Tensor> attentionWeights() const;
  std::vector<PositionModule> positionModules() const;
  // The position modules' parameters, by identity: their family initialises them (the GPT-2
  // initialisation leaves them alone) and the trainer gives them their own learning rate.
  std::set<const c10::TensorImpl*> positionParameterSet() const;
  int64_t parameterCount() const;

  ModelConfig config;
  torch::nn::Embedding embed{nullptr};
  std::vector<Block> blocks;
  torch::nn::AnyModule finalNorm;
  torch::nn::Linear head{nullptr};  // null when config.tieEmbedding (the head is embed.weight)
};
TORCH_MODULE(TinyTransformer);

}  // namespace poslab
