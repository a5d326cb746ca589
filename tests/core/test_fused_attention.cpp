// The fused attention kernel (model/fused_attention.h) against the reference path
// (causalAttention on the family's BlockScorer, which materialises the (B, H, T, T) weights), for
// every family of the registry: values and the gradients of q, k, v and every position parameter,
// in float64, in both score forms, at several lengths (including 1 and lengths that are not a
// multiple of the tile) and tile sizes; then the whole model, every parameter's gradient.
//
// Tolerance: 1e-9 relative to the largest reference magnitude of the compared tensor. Both sides
// are float64 and differ only in summation order (online softmax over tiles, per-tile products);
// that moves values by about T * 1e-16 relative. A wrong mask, a missing tile, a lost gradient
// path or a gradient that skips the bias or the direct form moves them by 1e-3 or more.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <map>

#include "attention_cases.h"

namespace poslab {
namespace {

using testing::positions;
using testing::randomQK;

constexpr double kFusedAttentionTolerance = 1e-9;

using testing::AttentionCase;
using testing::attentionCases;
using testing::AttentionOutputs;
using testing::relError;
using testing::runAttention;

ModelConfig fusedConfigFor(const AttentionCase& c) {
  return testing::attentionModelConfig(c, /*layers=*/2);
}

// Moves parameters off their initial values (deterministically), so that no gradient vanishes by
// symmetry and the learned values are generic: all of them, or those whose name contains `only`.
void perturbParameters(torch::nn::Module& m, unsigned seed, const std::string& only = "") {
  torch::NoGradGuard guard;
  torch::manual_seed(seed);
  for (auto& p : m.named_parameters()) {
    if (p.key().find(only) == std::string::npos) continue;
    p.value().add_(0.2 * torch::randn_like(p.value()));
  }
}

class FusedFamily : public ::testing::TestWithParam<size_t> {};

TEST_P(FusedFamily, ValuesAndEveryGradientMatchTheReference) {
  const AttentionCase c = attentionCases()[GetParam()];
  PositionModule module(fusedConfigFor(c), /*trainLength=*/32);
  module->to(torch::kDouble);
  perturbParameters(*module, 3);
  const auto names = module->named_parameters().keys();
  for (bool factorized : {true, false}) {
    for (int64_t T : {1, 7, 64, 130}) {
      at::Tensor q = randomQK(2, c.heads, T, c.headDim, at::kDouble, 21).requires_grad_();
      at::Tensor k = randomQK(2, c.heads, T, c.headDim, at::kDouble, 22).requires_grad_();
      at::Tensor v = randomQK(2, c.heads, T, c.headDim, at::kDouble, 23).requires_grad_();
      at::Tensor w = randomQK(2, c.heads, T, c.headDim, at::kDouble, 24);
      at::Tensor pos = positions(3, T);
      const AttentionOutputs ref = runAttention(module, q, k, v, pos, w, factorized, {true});
      for (int64_t tile : {16, 64, 1024}) {
        if (tile == 1024 && T < 64) continue;
        const AttentionOutputs got =
            runAttention(module, q, k, v, pos, w, factorized, {false, tile});
        const std::string where = c.id + (factorized ? " factorized" : " direct") +
                                  " T=" + std::to_string(T) + " tile=" + std::to_string(tile);
        EXPECT_LT(relError(got.y, ref.y), kFusedAttentionTolerance) << where << " values";
        for (size_t i = 0; i < ref.grads.size(); ++i) {
          const std::string name = i < 3 ? std::string(1, "qkv"[i]) : names[i - 3];
          EXPECT_LT(relError(got.grads[i], ref.grads[i]), kFusedAttentionTolerance)
              << where << " d" << name;
        }
      }
      // The comparison has something to compare: q, k, v get non-zero gradients (T > 1: at T = 1
      // the softmax is constant in q and k).
      for (size_t i = T > 1 ? 0 : 2; i < 3; ++i)
        EXPECT_GT(ref.grads[i].abs().max().item<double>(), 0.0) << c.id << " T=" << T;
    }
  }
}

// The whole model, fused against reference: logits and the gradient of every parameter
// (embeddings, linear layers, norms and all position parameters of every layer).
TEST_P(FusedFamily, WholeModelGradientsMatchTheReference) {
  const AttentionCase c = attentionCases()[GetParam()];
  torch::manual_seed(5);
  TinyTransformer model(fusedConfigFor(c), /*trainLength=*/32);
  model->to(torch::kDouble);
  perturbParameters(*model, 4, "position");
  torch::Tensor tokens = torch::randint(0, 7, {3, 45}, torch::kLong);
  torch::Tensor targets = torch::randint(0, 7, {3, 45}, torch::kLong);
  std::map<std::string, at::Tensor> refGrads;
  at::Tensor refLogits;
  for (bool fused : {false, true}) {
    model->useFusedAttention(fused, /*tile=*/16);
    model->zero_grad();
    torch::Tensor logits = model->forward(tokens);
    torch::nn::functional::cross_entropy(logits.reshape({-1, 7}), targets.reshape({-1})).backward();
    if (!fused) {
      refLogits = logits.detach();
      for (const auto& p : model->named_parameters()) refGrads[p.key()] = p.value().grad().clone();
      continue;
    }
    EXPECT_LT(relError(logits.detach(), refLogits), kFusedAttentionTolerance) << c.id << " logits";
    for (const auto& p : model->named_parameters()) {
      ASSERT_TRUE(p.value().grad().defined()) << c.id << " " << p.key() << " has no gradient";
      EXPECT_LT(relError(p.value().grad(), refGrads[p.key()]), kFusedAttentionTolerance)
          << c.id << " " << p.key();
    }
  }
  // Every position parameter learns on both paths.
  for (const auto& p : model->named_parameters())
    if (p.key().find("position") != std::string::npos)
      EXPECT_GT(refGrads[p.key()].abs().max().item<double>(), 0.0) << c.id << " " << p.key();
}

// Evaluation far past the tile: the fused no-grad path against the reference's streaming
// evaluation (key chunks of 64 with an online softmax), float32 as evaluation runs. Tolerance
// 1e-4 on logits of order 1 (float32, different summation order over 300 keys).
TEST_P(FusedFamily, LongNoGradEvaluationMatchesStreamingReference) {
  const AttentionCase c = attentionCases()[GetParam()];
  torch::manual_seed(6);
  TinyTransformer model(fusedConfigFor(c), /*trainLength=*/32);
  model->eval();
  torch::NoGradGuard noGrad;
  torch::Tensor tokens = torch::randint(0, 7, {2, 300}, torch::kLong);
  model->configureAttention(true, /*block=*/64, false);
  model->useFusedAttention(false);
  torch::Tensor ref = model->forward(tokens);
  model->useFusedAttention(true, /*tile=*/48);
  torch::Tensor got = model->forward(tokens);
  EXPECT_LT((got - ref).abs().max().item<double>(), 1e-4) << c.id;
}

INSTANTIATE_TEST_SUITE_P(AllFamilies, FusedFamily,
                         ::testing::Range<size_t>(0, attentionCases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return testing::attentionCaseName(info.param);
                         });

// The PJ-RoPE reference's combination: pj-bias with no attention of a query to itself
// (ModelConfig::includeSelf false, the pj-reference architecture), where query 0 has no key at
// all. Fused against reference, whole model, float64, the tolerance above; every output finite.
TEST(FusedAttention, PjBiasWithoutSelfAttentionMatchesTheReference) {
  AttentionCase c;
  for (const auto& known : attentionCases())
    if (known.id == "pj-bias") c = known;
  ASSERT_EQ(c.id, "pj-bias");
  ModelConfig cfg = fusedConfigFor(c);
  cfg.includeSelf = false;
  torch::manual_seed(8);
  TinyTransformer model(cfg, /*trainLength=*/32);
  model->to(torch::kDouble);
  perturbParameters(*model, 4, "position");
  torch::Tensor tokens = torch::randint(0, 7, {3, 45}, torch::kLong);
  torch::Tensor targets = torch::randint(0, 7, {3, 45}, torch::kLong);
  std::map<std::string, at::Tensor> refGrads;
  at::Tensor refLogits;
  for (bool fused : {false, true}) {
    model->useFusedAttention(fused, /*tile=*/16);
    model->zero_grad();
    torch::Tensor logits = model->forward(tokens);
    ASSERT_TRUE(torch::isfinite(logits).all().item<bool>()) << (fused ? "fused" : "reference");
    torch::nn::functional::cross_entropy(logits.reshape({-1, 7}), targets.reshape({-1})).backward();
    if (!fused) {
      refLogits = logits.detach();
      for (const auto& p : model->named_parameters()) refGrads[p.key()] = p.value().grad().clone();
      continue;
    }
    EXPECT_LT(relError(logits.detach(), refLogits), kFusedAttentionTolerance) << "logits";
    for (const auto& p : model->named_parameters()) {
      ASSERT_TRUE(p.value().grad().defined()) << p.key() << " has no gradient";
      EXPECT_TRUE(torch::isfinite(p.value().grad()).all().item<bool>()) << p.key();
      EXPECT_LT(relError(p.value().grad(), refGrads[p.key()]), kFusedAttentionTolerance) << p.key();
    }
  }
  // The position parameters learn, and excluding the diagonal changed the model's output.
  for (const auto& p : model->named_parameters())
    if (p.key().find("position") != std::string::npos)
      EXPECT_GT(refGrads[p.key()].abs().max().item<double>(), 0.0) << p.key();
  cfg.includeSelf = true;
  torch::manual_seed(8);
  TinyTransformer withSelf(cfg, /*trainLength=*/32);
  withSelf->to(torch::kDouble);
  perturbParameters(*withSelf, 4, "position");
  EXPECT_GT((withSelf->forward(tokens).detach() - refLogits).abs().max().item<double>(), 1e-3);
}

TEST(FusedAttention, CoversEveryRegisteredFamily) {
  EXPECT_EQ(attentionCases().size(), allFamilies().size());
  EXPECT_GE(attentionCases().size(), 19u);
}

TEST(FusedAttention, RejectsAZeroTile) {
  at::Tensor q = randomQK(1, 1, 4, 4, at::kDouble, 1);
  TrainedScore s;
  s.fq = q;
  s.fk = q;
  EXPECT_THROW(fusedCausalAttention(s, 1.0, positions(0, 4), q, q, q, {}, 0),
               std::invalid_argument);
}

}  // namespace
}  // namespace poslab
