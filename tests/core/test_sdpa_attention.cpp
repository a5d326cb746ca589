// LibTorch 2.x's at::scaled_dot_product_attention for the plain dot-product families (factorized
// form, no bias: RoPE and its variants, exact and stabilized Jordan, PoPE, ...), the option
// run.attention "sdpa" (model/attention_path.h, model/fused_attention.cpp; compared for speed in
// bench/bench_fused_attention.cpp --sdpa), against the float64 reference (causalAttention on the
// family's BlockScorer): values and the gradients of q, k, v and every position parameter.
// Skipped, with the reason, where LibTorch has none (Debian's 1.13).
//
// Tolerance 1e-9 relative, as test_fused_attention.cpp: float64, summation order only.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "encodings/registry.h"
#include "model/transformer.h"
#include "test_support.h"
#include "util/torch_compat.h"

namespace poslab {
namespace {

using testing::positions;
using testing::randomQK;

double relError(const at::Tensor& got, const at::Tensor& want) {
  at::Tensor g = got.defined() ? got : at::zeros_like(want);
  at::Tensor w = want.defined() ? want : at::zeros_like(got);
  return (g - w).abs().max().item<double>() / (1.0 + w.abs().max().item<double>());
}

// The family's own default head size: 12 for the order-3 blocks (6 reals each), else 16.
long long defaultHeadDim(const std::string& id) {
  for (const auto& p : familyInfo(id).params)
    if (p.name == "head_dim") return static_cast<long long>(p.defaultValue);
  return 16;
}

TEST(ScaledDotProductAttention, PlainDotProductFamiliesMatchTheFloat64Reference) {
  if (!compat::kHasScaledDotProductAttention)
    GTEST_SKIP() << "this LibTorch (" << TORCH_VERSION
                 << ") has no at::scaled_dot_product_attention (2.1 or later)";
  int compared = 0;
  for (const auto& c : testing::allFamilyCases()) {
    ModelConfig cfg;
    cfg.family = c.id;
    cfg.familyParams = c.params;
    cfg.heads = c.heads;
    long long headDim = defaultHeadDim(c.id);
    if (cfg.familyParams.count("head_dim")) {
      headDim = static_cast<long long>(cfg.familyParams["head_dim"]);
      cfg.familyParams.erase("head_dim");
    }
    cfg.dModel = c.heads * headDim;
    cfg.layers = 1;
    cfg.vocab = 7;
    torch::manual_seed(3);
    PositionModule module(cfg, /*trainLength=*/32);
    module->to(torch::kDouble);
    const int64_t T = 70;
    at::Tensor q = randomQK(2, c.heads, T, headDim, at::kDouble, 21).requires_grad_();
    at::Tensor k = randomQK(2, c.heads, T, headDim, at::kDouble, 22).requires_grad_();
    at::Tensor v = randomQK(2, c.heads, T, headDim, at::kDouble, 23).requires_grad_();
    at::Tensor w = randomQK(2, c.heads, T, headDim, at::kDouble, 24);
    at::Tensor pos = positions(0, T);
    TrainedScore score = module->trainedScore(q, k, pos, /*allowFactorized=*/true);
    if (!score.fq.defined()) continue;  // direct form only
    if (score.bias && score.bias(pos.narrow(0, 0, 1), pos.narrow(0, 0, 1), at::kDouble).defined())
      continue;  // a bias: not a plain dot product
    std::vector<at::Tensor> inputs = {q, k, v};
    for (const auto& p : module->parameters()) inputs.push_back(p);
    at::Tensor got =
        compat::causalScaledDotProductAttention(score.fq, score.fk, v, module->scoreScale());
    auto gotGrads = torch::autograd::grad({(got * w).sum()}, inputs, {}, false, false, true);
    at::Tensor ref = causalAttention(module->scorer(q, k, pos, true), v, T);
    auto refGrads = torch::autograd::grad({(ref * w).sum()}, inputs, {}, false, false, true);
    EXPECT_LT(relError(got, ref), 1e-9) << c.id << " values";
    for (size_t i = 0; i < refGrads.size(); ++i)
      EXPECT_LT(relError(gotGrads[i], refGrads[i]), 1e-9) << c.id << " gradient " << i;
    ++compared;
  }
  EXPECT_GE(compared, 3) << "too few plain dot-product families compared";
}

}  // namespace
}  // namespace poslab
