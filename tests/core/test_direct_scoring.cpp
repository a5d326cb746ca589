// The direct form's fast path (one matmul per order over all blocks, the decay e^(-gamma d) split
// between the two sides) against the block-by-block path and the float64 reference: values and
// gradients on random inputs, and float32 on both sides of the range bound where the fast path
// gives way to the block-by-block one. Tolerances: 1e-10 relative (float64), 2e-4 relative to the
// logit scale (float32).
#include <gtest/gtest.h>

#include "encodings/jordan_blocks.h"
#include "encodings/registry.h"
#include "test_support.h"

namespace poslab {
namespace {

using testing::maxAbsDiff;
using testing::positions;
using testing::randomQK;
using testing::referenceLogits;

// Three groups that leave two head dims uncovered: order 2 with the saturating shear time, order 3
// with the linear one, order 2 with the absolute-saturating one; every gamma and shear different.
JordanLayout mixedLayout() {
  JordanLayout layout;
  layout.dim = 2 * 2 * 3 + 2 + 2 * 3 * 2 + 2 * 2 * 2;  // 34, dims 12 and 13 uncovered
  layout.groups.push_back(makeJordanGroup(0, 2, {0.004, 0.011, 0.0}, {0.9, 0.31, 0.05},
                                          {0.3, -0.2, 0.05}, ShearKind::Saturating, 24));
  layout.groups.push_back(
      makeJordanGroup(14, 3, {0.002, 0.017}, {0.6, 0.13}, {0.12, -0.4}, ShearKind::Linear, 256));
  // The only kind whose shear time is not 0 on the (masked) future entries.
  layout.groups.push_back(makeJordanGroup(26, 2, {0.006, 0.001}, {0.4, 0.07}, {0.25, -0.1},
                                          ShearKind::AbsoluteSaturating, 40));
  return layout;
}

struct ScoresAndGrads {
  at::Tensor scores, dq, dk;
  std::vector<at::Tensor> dGamma, dShear;
};

ScoresAndGrads scoreWithGrads(DirectScoring how) {
  JordanLayout layout = mixedLayout();
  for (auto& g : layout.groups) {
    g.gamma = g.gamma.clone().requires_grad_();
    g.shear = g.shear.clone().requires_grad_();
  }
  at::Tensor q = randomQK(2, 2, 30, layout.dim, at::kDouble, 11).requires_grad_();
  at::Tensor k = randomQK(2, 2, 45, layout.dim, at::kDouble, 12).requires_grad_();
  // Queries at 140..169 against keys at 120..164: a chunk off the diagonal, some keys in the
  // future.
  at::Tensor s = jordanDirectScores(layout, q, k, positions(140, 30), positions(120, 45), how);
  at::manual_seed(13);
  (s * at::randn_like(s)).sum().backward();
  ScoresAndGrads out{s.detach(), q.grad(), k.grad(), {}, {}};
  for (const auto& g : layout.groups) {
    out.dGamma.push_back(g.gamma.grad());
    out.dShear.push_back(g.shear.grad());
  }
  return out;
}

double relDiff(const at::Tensor& a, const at::Tensor& b) {
  return maxAbsDiff(a, b) / (1e-300 + b.abs().max().item<double>());
}

TEST(DirectScoring, OneMatmulPerOrderEqualsBlockByBlockWithGradients) {
  ScoresAndGrads fast = scoreWithGrads(DirectScoring::Auto);
  ScoresAndGrads slow = scoreWithGrads(DirectScoring::PerBlock);
  EXPECT_LT(relDiff(fast.scores, slow.scores), 1e-10);
  EXPECT_LT(relDiff(fast.dq, slow.dq), 1e-10);
  EXPECT_LT(relDiff(fast.dk, slow.dk), 1e-10);
  for (size_t g = 0; g < fast.dGamma.size(); ++g) {
    EXPECT_LT(relDiff(fast.dGamma[g], slow.dGamma[g]), 1e-10) << "group " << g;
    EXPECT_LT(relDiff(fast.dShear[g], slow.dShear[g]), 1e-10) << "group " << g;
  }
  // Future keys score exactly 0 in both.
  EXPECT_EQ(fast.scores.select(2, 0).narrow(-1, 21, 24).abs().max().item<double>(), 0.0);
}

// Positions 4000..4511 (span 511) in float32: gamma * span = 25 takes the fast path, 45 and 200 are
// past the bound and take the block-by-block one (200 would overflow float32 on the fast path).
// Both must match the float64 reference and leave finite gradients (the fast path's discarded
// future entries hold e^(+gamma (j - i))).
class DirectScoringFloat32 : public ::testing::TestWithParam<double> {};

TEST_P(DirectScoringFloat32, MatchesReferenceAtLongPositions) {
  const double gamma = GetParam() / 511.0;
  auto enc = makeEncoding("jordan-stabilized", {{"gamma", gamma}, {"eta", 0.3}, {"L", 64}});
  const long long D = enc->headDim();
  at::Tensor q = randomQK(1, 1, 512, D, at::kFloat, 21).requires_grad_();
  at::Tensor k = randomQK(1, 1, 512, D, at::kFloat, 22).requires_grad_();
  at::Tensor pos = positions(4000, 512);
  at::Tensor logits = attentionLogits(*enc, q, k, pos, pos, Form::Direct, /*chunk=*/512);
  at::Tensor ref = referenceLogits(*enc, q.detach(), k.detach(), pos, pos);
  const double scale =
      at::where(at::isfinite(ref), ref.abs(), at::zeros_like(ref)).max().item<double>();
  EXPECT_LT(maxAbsDiff(logits.detach(), ref), 2e-4 * (1 + scale));
  at::softmax(logits, -1).select(-1, 0).sum().backward();
  EXPECT_TRUE(at::isfinite(q.grad()).all().item<bool>());
  EXPECT_TRUE(at::isfinite(k.grad()).all().item<bool>());
}

INSTANTIATE_TEST_SUITE_P(EitherSideOfTheBound, DirectScoringFloat32,
                         ::testing::Values(25.0, 45.0, 200.0));

}  // namespace
}  // namespace poslab
