// The fused kernel's lag-weighted tiles (model/tile_terms.h) in float32, as training runs them,
// against the float64 reference (causalAttention on the BlockScorer): values and the gradients of
// q, k, v and every position parameter, at the decays where the split factors are largest.
// The split puts e^(-gamma (i - q0)) into a query's features and e^(+gamma (j - k0)) into a key's,
// so at gamma (tile - 1) = 30 (float32's bound, tile_terms.cpp) a key carries a factor up to
// e^30 = 1.1e13 and a query one down to e^-30; the products on the tile's masked entries reach
// e^30 too. A bound past float32's range turns the hand-written backward's 0 * inf into NaN.
//
// Tolerance: 2e-4 relative to the largest reference magnitude of the compared tensor. float32
// rounds each product to 6e-8 relative; a score sums 16-dim features (the split factors cancel
// exactly in value but not in rounding: each of e^(-a) and e^(+b) is rounded once), and an
// attention row sums up to 300 weights, so values move by about 1e-6 and gradients, which sum
// over the rows as well, by about 1e-5; 2e-4 leaves a factor of 10 and still fails a lost term
// (1e-2 or more) or a tile computed at the wrong lag.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "attention_cases.h"
#include "model/tile_terms.h"

namespace poslab {
namespace {

using testing::AttentionCase;
using testing::attentionCases;
using testing::positions;
using testing::randomQK;
using testing::relError;

constexpr double kFloat32TilesTolerance = 2e-4;

AttentionCase jordanStabilized() {
  for (const auto& c : attentionCases())
    if (c.id == "jordan-stabilized") return c;
  throw std::runtime_error("no jordan-stabilized case");
}

struct Outputs {
  at::Tensor y;
  std::vector<at::Tensor> grads;  // q, k, v, then each position parameter
  int directCalls = 0;            // per-tile calls of the family's direct form
};

// The module's attention in `dtype`: the fused kernel (counting direct-form calls) or the
// materialised reference. q, k, v, w (B, H, T, hs) are the same float64 draws for both dtypes.
Outputs attendInFloat32Tiles(PositionModule& module, const AttentionCase& c, at::ScalarType dtype,
                             int64_t T, int64_t tile, bool reference) {
  module->to(dtype);
  const int64_t H = c.heads, hs = c.headDim;
  at::Tensor q = randomQK(2, H, T, hs, dtype, 41).requires_grad_();
  at::Tensor k = randomQK(2, H, T, hs, dtype, 42).requires_grad_();
  at::Tensor v = randomQK(2, H, T, hs, dtype, 43).requires_grad_();
  at::Tensor w = randomQK(2, H, T, hs, dtype, 44);
  at::Tensor pos = positions(0, T);
  std::vector<at::Tensor> params = module->parameters();
  Outputs out;
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
    out.directCalls = *calls;
  }
  std::vector<at::Tensor> inputs = {q, k, v};
  inputs.insert(inputs.end(), params.begin(), params.end());
  out.y = y.detach();
  out.grads = torch::autograd::grad({(y * w).sum()}, inputs, {}, false, false, true);
  return out;
}

// jordan-stabilized (relative shear: its direct form is its only form) with every block's decay
// at gamma (= softplus(raw) + 1e-4) and the shear moved off zero.
PositionModule moduleWithDecay(const AttentionCase& c, double gamma) {
  PositionModule module(testing::attentionModelConfig(c, /*layers=*/1), /*trainLength=*/32);
  module->to(torch::kDouble);
  torch::NoGradGuard guard;
  torch::manual_seed(9);
  for (auto& p : module->named_parameters()) {
    p.value().add_(0.2 * torch::randn_like(p.value()));
    if (p.key().find("gamma_raw") != std::string::npos)
      p.value().fill_(std::log(std::expm1(gamma - 1e-4)));
  }
  return module;
}

struct Float32Case {
  double gamma;
  int64_t tile;  // asked of the kernel; gamma (tile - 1) = 29.9, just inside the bound, keeps it
  int64_t T;
};

class LagTilesFloat32 : public ::testing::TestWithParam<Float32Case> {};

TEST_P(LagTilesFloat32, MatchFloat64ReferenceAtTheLargestSplitFactors) {
  const Float32Case p = GetParam();
  const AttentionCase c = jordanStabilized();
  PositionModule module = moduleWithDecay(c, p.gamma);
  // The kernel really splits at this tile in float32: e^(gamma (tile - 1)) = e^30.
  {
    at::Tensor q = randomQK(1, c.heads, p.T, c.headDim, at::kFloat, 1);
    module->to(at::kFloat);
    const auto terms = module->trainedScore(q, q, positions(0, p.T), false).lagTerms();
    ASSERT_FALSE(terms.empty());
    EXPECT_EQ(tileLagTerms(terms, 1.0, positions(0, p.T), at::kFloat, p.tile).tile, p.tile);
  }
  const Outputs want =
      attendInFloat32Tiles(module, c, at::kDouble, p.T, p.tile, /*reference=*/true);
  const Outputs got = attendInFloat32Tiles(module, c, at::kFloat, p.T, p.tile, /*reference=*/false);
  EXPECT_EQ(got.directCalls, 0) << "the float32 kernel left the lag-weighted tiles";
  const std::string where = "gamma " + std::to_string(p.gamma) + " tile " + std::to_string(p.tile);
  EXPECT_TRUE(torch::isfinite(got.y).all().item<bool>()) << where;
  EXPECT_LT(relError(got.y, want.y), kFloat32TilesTolerance) << where << " values";
  ASSERT_EQ(got.grads.size(), want.grads.size());
  const auto names = module->named_parameters().keys();
  for (size_t i = 0; i < want.grads.size(); ++i) {
    const std::string name = i < 3 ? std::string(1, "qkv"[i]) : names[i - 3];
    ASSERT_TRUE(got.grads[i].defined()) << where << " d" << name;
    EXPECT_TRUE(torch::isfinite(got.grads[i]).all().item<bool>()) << where << " d" << name;
    EXPECT_LT(relError(got.grads[i], want.grads[i]), kFloat32TilesTolerance)
        << where << " d" << name;
    // Something to compare: the reference gradient is not zero.
    EXPECT_GT(want.grads[i].abs().max().item<double>(), 0.0) << where << " d" << name;
  }
}

INSTANTIATE_TEST_SUITE_P(SplitAtE30, LagTilesFloat32,
                         ::testing::Values(Float32Case{29.9 / 15.0, 16, 150},
                                           Float32Case{29.9 / 63.0, 64, 300},
                                           Float32Case{29.9 / 127.0, 128, 300}),
                         [](const ::testing::TestParamInfo<Float32Case>& info) {
                           return "tile" + std::to_string(info.param.tile);
                         });

}  // namespace
}  // namespace poslab
