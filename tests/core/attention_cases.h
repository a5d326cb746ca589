// What the fused-attention tests (CPU: test_fused_attention.cpp, CUDA:
// test_fused_attention_cuda.cpp) share: one case per registered family, the model configuration
// it runs in, the attention with its gradients, and the error measure they compare with.
#pragma once

#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

#include "encodings/registry.h"
#include "model/fused_attention.h"
#include "model/transformer.h"
#include "test_support.h"

namespace poslab::testing {

struct AttentionCase {
  std::string id;
  std::map<std::string, double> params;
  long long heads = 2;
  long long headDim = 16;
};

// Every registered family, with the non-default parameters of test_support.h's list where it has
// them; a family missing from that list still runs with its defaults.
inline std::vector<AttentionCase> attentionCases() {
  std::map<std::string, FamilyCase> known;
  for (const auto& c : allFamilyCases()) known[c.id] = c;
  std::vector<AttentionCase> out;
  for (const auto* info : allFamilies()) {
    AttentionCase c{info->id, {}, 2, 16};
    if (known.count(info->id)) {
      c.params = known[info->id].params;
      c.heads = known[info->id].heads;
    }
    if (c.id.rfind("jordan-m3", 0) == 0) c.headDim = 12;  // blocks of order 3 take 6 reals
    if (c.params.count("head_dim")) {
      c.headDim = static_cast<long long>(c.params["head_dim"]);
      c.params.erase("head_dim");
    }
    out.push_back(c);
  }
  return out;
}

// The gtest name of case `index` ("jordan-m3" -> "jordan_m3").
inline std::string attentionCaseName(size_t index) {
  std::string name = attentionCases()[index].id;
  for (char& ch : name)
    if (ch == '-') ch = '_';
  return name;
}

inline ModelConfig attentionModelConfig(const AttentionCase& c, long long layers) {
  ModelConfig cfg;
  cfg.family = c.id;
  cfg.familyParams = c.params;
  cfg.heads = c.heads;
  cfg.dModel = c.heads * c.headDim;
  cfg.layers = layers;
  cfg.vocab = 7;
  return cfg;
}

// max |got - want| / (1 + max |want|), on the CPU in float64; an undefined tensor counts as zeros
// (a gradient one side did not produce).
inline double relError(const at::Tensor& got, const at::Tensor& want) {
  if (!got.defined() && !want.defined()) return 0.0;
  at::Tensor g = got.defined() ? got.to(torch::kCPU, torch::kDouble) : at::zeros_like(want);
  at::Tensor w = want.defined() ? want.to(torch::kCPU, torch::kDouble) : at::zeros_like(g);
  const double scale = w.abs().max().item<double>();
  return (g - w).abs().max().item<double>() / (1.0 + scale);
}

struct AttentionOutputs {
  at::Tensor y;                   // (B, H, T, hs), detached
  std::vector<at::Tensor> grads;  // d sum(y * w) / d q, k, v, then each position parameter
};

// Which attention runAttention computes.
struct AttentionPath {
  bool reference = false;              // causalAttention on the BlockScorer (materialised weights)
  int64_t tile = kFusedAttentionTile;  // the fused path's tile edge
};

// The attention of the module's family on q, k, v (B, H, T, hs; leaves that require grad, on the
// module's device), pos (T) int64, and the gradients of sum(y * w).
inline AttentionOutputs runAttention(PositionModule& module, const at::Tensor& q,
                                     const at::Tensor& k, const at::Tensor& v,
                                     const at::Tensor& pos, const at::Tensor& w,
                                     bool allowFactorized, AttentionPath path) {
  std::vector<at::Tensor> params = module->parameters();
  at::Tensor y = path.reference
                     ? causalAttention(module->scorer(q, k, pos, allowFactorized), v,
                                       /*block=*/q.size(2))
                     : fusedCausalAttention(module->trainedScore(q, k, pos, allowFactorized),
                                            module->scoreScale(), pos, q, k, v, params, path.tile);
  std::vector<at::Tensor> inputs = {q, k, v};
  inputs.insert(inputs.end(), params.begin(), params.end());
  AttentionOutputs out;
  out.y = y.detach();
  out.grads = torch::autograd::grad({(y * w).sum()}, inputs, {}, /*retain_graph=*/false,
                                    /*create_graph=*/false, /*allow_unused=*/true);
  return out;
}

}  // namespace poslab::testing
