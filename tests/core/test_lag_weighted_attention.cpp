// The fused kernel's lag-weighted path (model/tile_terms.h): a direct form written as products
// per tile, with its decay split between the tiles and a lag weight per tile distance.
// test_fused_attention.cpp compares every family's fused attention with the reference
// (values and every gradient, float64); these tests show that the direct forms that have a
// lag-weighted form really take it (the per-tile re-run of the direct form is never called), that
// a decay too fast for the tile shrinks it, and that one too fast for a tile of 16 falls back to
// the direct form, all against the reference at 1e-9 (the tolerance of test_fused_attention.cpp,
// same reasoning: float64 on both sides, different summation order).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <memory>
#include <set>
#include <string>

#include "attention_cases.h"
#include "model/tile_terms.h"

namespace poslab {
namespace {

using testing::AttentionCase;
using testing::attentionCases;
using testing::positions;
using testing::randomQK;
using testing::relError;

constexpr double kLagWeightedTolerance = 1e-9;

struct AttentionRun {
  at::Tensor y;
  std::vector<at::Tensor> grads;  // q, k, v, then the module's parameters
  int directCalls = 0;            // calls of the family's per-tile direct form
};

// The fused (or reference) attention of the module's family in its direct form, counting the
// calls of the per-tile direct scores.
AttentionRun attendLagWeighted(PositionModule& module, const AttentionCase& c, int64_t T,
                               int64_t tile, bool reference) {
  const int64_t H = c.heads, hs = c.headDim;
  at::Tensor q = randomQK(2, H, T, hs, at::kDouble, 31).requires_grad_();
  at::Tensor k = randomQK(2, H, T, hs, at::kDouble, 32).requires_grad_();
  at::Tensor v = randomQK(2, H, T, hs, at::kDouble, 33).requires_grad_();
  at::Tensor w = randomQK(2, H, T, hs, at::kDouble, 34);
  at::Tensor pos = positions(5, T);
  std::vector<at::Tensor> params = module->parameters();
  AttentionRun run;
  at::Tensor y;
  if (reference) {
    y = causalAttention(module->scorer(q, k, pos, /*allowFactorized=*/false), v, T);
  } else {
    TrainedScore score = module->trainedScore(q, k, pos, /*allowFactorized=*/false);
    auto calls = std::make_shared<int>(0);
    auto direct = score.direct;
    score.direct = [direct, calls](int64_t q0, int64_t qn, int64_t k0, int64_t kn) {
      ++*calls;
      return direct(q0, qn, k0, kn);
    };
    y = fusedCausalAttention(score, module->scoreScale(), pos, q, k, v, params, tile);
    (y * w).sum().backward({}, /*retain_graph=*/true);
    run.directCalls = *calls;
    for (auto& t : std::vector<at::Tensor>{q, k, v}) t.mutable_grad() = at::Tensor();
    for (auto& t : params) t.mutable_grad() = at::Tensor();
  }
  std::vector<at::Tensor> inputs = {q, k, v};
  inputs.insert(inputs.end(), params.begin(), params.end());
  run.y = y.detach();
  run.grads = torch::autograd::grad({(y * w).sum()}, inputs, {}, false, false, true);
  return run;
}

void expectSame(const AttentionRun& got, const AttentionRun& want, const std::string& where) {
  EXPECT_LT(relError(got.y, want.y), kLagWeightedTolerance) << where << " values";
  ASSERT_EQ(got.grads.size(), want.grads.size());
  for (size_t i = 0; i < want.grads.size(); ++i)
    EXPECT_LT(relError(got.grads[i], want.grads[i]), kLagWeightedTolerance)
        << where << " gradient " << i;
}

PositionModule moduleFor(const AttentionCase& c) {
  PositionModule module(testing::attentionModelConfig(c, /*layers=*/1), /*trainLength=*/32);
  module->to(torch::kDouble);
  torch::NoGradGuard guard;
  torch::manual_seed(7);
  for (auto& p : module->named_parameters()) p.value().add_(0.2 * torch::randn_like(p.value()));
  return module;
}

AttentionCase caseOf(const std::string& id) {
  for (const auto& c : attentionCases())
    if (c.id == id) return c;
  throw std::runtime_error("no attention case " + id);
}

// Sets every block's decay to gamma (gamma = softplus(raw) + 1e-4, rotary_trainable.cpp).
void setDecay(PositionModule& module, double gamma) {
  torch::NoGradGuard guard;
  for (auto& p : module->named_parameters())
    if (p.key().find("gamma_raw") != std::string::npos)
      p.value().fill_(std::log(std::expm1(gamma - 1e-4)));
}

// Which families' direct forms have a lag-weighted form: every one without a jet mix or an
// absolute shear time of order > 1 (MATH 2.6). The relative-shear Jordan-RoPE is the family that
// has no other form, so it must be among them.
TEST(LagWeightedAttention, DirectFormsWithALagFormNeverReRunTheDirectForm) {
  std::set<std::string> lagFamilies;
  for (const auto& c : attentionCases()) {
    PositionModule module = moduleFor(c);
    at::Tensor q = randomQK(1, c.heads, 8, c.headDim, at::kDouble, 1);
    TrainedScore score = module->trainedScore(q, q, positions(0, 8), false);
    if (!score.lagTerms || score.lagTerms().empty()) continue;
    lagFamilies.insert(c.id);
    const AttentionRun got = attendLagWeighted(module, c, 70, /*tile=*/16, /*reference=*/false);
    EXPECT_EQ(got.directCalls, 0) << c.id;
    expectSame(got, attendLagWeighted(module, c, 70, 16, /*reference=*/true), c.id);
  }
  for (const char* id : {"jordan-stabilized", "rope", "damped-rope", "jordan-exact", "pj-rotary"})
    EXPECT_TRUE(lagFamilies.count(id)) << id << " has no lag-weighted form";
  for (const char* id : {"jordan-stabilized-abs", "jordan-m3-jetmix"})
    EXPECT_FALSE(lagFamilies.count(id)) << id << " has no lag function but got a lag form";
}

// jordan-stabilized with every block's decay at gamma, T tokens, the kernel asked for `tile`.
struct DecayCase {
  AttentionCase c = caseOf("jordan-stabilized");
  PositionModule module;
  AttentionRun fused, reference;
  DecayCase(double gamma, int64_t T, int64_t tile) : module(moduleFor(c)) {
    setDecay(module, gamma);
    fused = attendLagWeighted(module, c, T, tile, /*reference=*/false);
    reference = attendLagWeighted(module, c, T, tile, /*reference=*/true);
  }
};

// gamma = 3 in float64: e^(gamma (tile - 1)) must stay under e^300, so a tile of 128 shrinks to
// 96; still no direct form, and the same values and gradients.
TEST(LagWeightedAttention, AFastDecayShrinksTheTile) {
  DecayCase run(3.0, 300, 128);
  at::Tensor q = randomQK(1, run.c.heads, 300, run.c.headDim, at::kDouble, 1);
  const auto terms = run.module->trainedScore(q, q, positions(0, 300), false).lagTerms();
  EXPECT_EQ(tileLagTerms(terms, 1.0, positions(0, 300), at::kDouble, 128).tile, 96);
  EXPECT_EQ(run.fused.directCalls, 0);
  expectSame(run.fused, run.reference, "gamma 3");
}

// gamma = 25: a tile of 16 would need e^(25 * 15) > e^300; the kernel runs the direct form.
TEST(LagWeightedAttention, ADecayTooFastForATileOfSixteenFallsBackToTheDirectForm) {
  DecayCase run(25.0, 70, 64);
  EXPECT_GT(run.fused.directCalls, 0);
  expectSame(run.fused, run.reference, "gamma 25");
}

// Positions with a gap: the tiles' distance no longer gives the lag, so no lag-weighted tiles.
TEST(LagWeightedAttention, PositionsThatAreNotConsecutiveGetNoTiles) {
  const AttentionCase c = caseOf("jordan-stabilized");
  PositionModule module = moduleFor(c);
  at::Tensor q = randomQK(1, c.heads, 4, c.headDim, at::kDouble, 1);
  at::Tensor pos = torch::tensor({0, 1, 2, 5}, torch::kLong);
  auto terms = module->trainedScore(q, q, pos, false).lagTerms();
  ASSERT_FALSE(terms.empty());
  EXPECT_TRUE(tileLagTerms(terms, 1.0, pos, at::kDouble, 16).terms.empty());
  EXPECT_FALSE(tileLagTerms(terms, 1.0, positions(0, 4), at::kDouble, 16).terms.empty());
}

}  // namespace
}  // namespace poslab
