// The pure rotations (RoPE and its context extensions: nothing learned) keep their rotation
// factors between forwards, keyed by the positions, dtype and device (rotary_trainable.cpp). The
// cached factorized logits must equal the direct form's, which never uses the cache, whatever
// the order of the calls: a length past the training length (YaRN, NTK and PI change their
// layout there), shifted positions, another dtype, and positions that are not consecutive (not
// cached). Tolerance: 1e-9 of the logit scale in float64, 1e-4 in float32 (the factorized and
// direct forms round differently; a factor of the wrong length, positions or layout is off by
// O(1)).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <limits>
#include <string>
#include <vector>

#include "model/position_module.h"
#include "test_support.h"

namespace poslab {
namespace {

using testing::randomQK;

// Largest |factorized - direct| over the causal logits, relative to the largest |direct|.
double formDifference(PositionModule& module, const at::Tensor& pos, at::ScalarType dtype,
                      unsigned seed) {
  const int64_t T = pos.numel();
  at::Tensor q = randomQK(2, 2, T, 16, dtype, seed), k = randomQK(2, 2, T, 16, dtype, seed + 1);
  at::Tensor cached = module->scorer(q, k, pos, /*allowFactorized=*/true)(0, T, 0, T);
  at::Tensor direct = module->scorer(q, k, pos, /*allowFactorized=*/false)(0, T, 0, T);
  at::Tensor finite = direct.isfinite();
  at::Tensor want = direct.masked_select(finite).to(at::kDouble);
  at::Tensor got = cached.masked_select(finite).to(at::kDouble);
  return (got - want).abs().max().item<double>() / (1.0 + want.abs().max().item<double>());
}

at::Tensor range(int64_t first, int64_t count) {
  return torch::arange(first, first + count, torch::kLong);
}

TEST(RotationCache, CachedFactorsFollowThePositionsTheLengthAndTheDtype) {
  for (const std::string id : {"rope", "rope-pi", "rope-ntk", "rope-yarn"}) {
    ModelConfig cfg;
    cfg.family = id;
    cfg.heads = 2;
    cfg.dModel = 32;
    PositionModule module(cfg, /*trainLength=*/32);
    struct Call {
      at::Tensor pos;
      at::ScalarType dtype;
    };
    const std::vector<Call> calls = {
        {range(0, 16), at::kDouble},
        {range(0, 16), at::kDouble},   // the same: from the cache
        {range(0, 80), at::kDouble},   // past L: another layout
        {range(0, 16), at::kDouble},   // back
        {range(24, 16), at::kDouble},  // the same length, shifted past L: another layout
        {range(24, 16), at::kFloat},   // another dtype
        {torch::tensor({0, 1, 2, 5, 9}, torch::kLong), at::kDouble},  // not consecutive
        {range(0, 80), at::kFloat}};
    unsigned seed = 1;
    for (const Call& c : calls) {
      const double tol = c.dtype == at::kDouble ? 1e-9 : 1e-4;
      EXPECT_LT(formDifference(module, c.pos, c.dtype, seed += 2), tol)
          << id << " positions " << c.pos[0].item<int64_t>() << ".." << c.pos[-1].item<int64_t>()
          << (c.dtype == at::kDouble ? " float64" : " float32");
    }
  }
}

}  // namespace
}  // namespace poslab
