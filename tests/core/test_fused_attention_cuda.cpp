// PosLab's CUDA fused attention (model/fused_attention_cuda.h, core/cuda/) against the float64
// CPU reference (causalAttention on the family's BlockScorer), for every family of the registry:
// values and the gradients of q, k, v and every position parameter, in both score forms (the
// factorized form runs PosLab's CUDA kernel, which the test checks it does; the direct form runs
// the generic tiled path on the GPU), at lengths 1, 7, 64 and 130 (one, several and a partial
// tile of the kernel's 32 or 16 rows).
//
// Skipped, with the reason, in a build without a CUDA LibTorch and on a machine without a CUDA
// device; never passed silently.
//
// Tolerances: float64 on the GPU, 1e-9 relative to the largest reference magnitude (as the CPU
// fused test: only the summation order differs); float32 values 2e-4 (float32 rounding over up to
// 130 keys and a dot product of 16, against float64).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <map>

#include "attention_cases.h"
#include "model/fused_attention_cuda.h"

namespace poslab {
namespace {

using testing::positions;
using testing::randomQK;

constexpr double kTolerance64 = 1e-9;
constexpr double kTolerance32 = 2e-4;

// Empty when the CUDA tests can run here, else why not (shown by GTEST_SKIP).
std::string whyNoCuda() {
  if (!cudaAttentionKernelsBuilt())
    return "this build has no CUDA kernels: it was built against a LibTorch without CUDA "
           "(build with POSLAB_LIBTORCH=pip and the CUDA toolkit, README)";
  if (!torch::cuda::is_available()) return "no CUDA device on this machine";
  return "";
}

using testing::AttentionCase;
using testing::attentionCases;
using testing::AttentionOutputs;
using testing::relError;
using testing::runAttention;

ModelConfig cudaConfigFor(const AttentionCase& c) {
  return testing::attentionModelConfig(c, /*layers=*/1);
}

at::Tensor leaf(const at::Tensor& t, const at::TensorOptions& o) {
  return t.to(o).detach().requires_grad_();
}

class CudaFusedFamily : public ::testing::TestWithParam<size_t> {};

TEST_P(CudaFusedFamily, ValuesAndEveryGradientMatchTheFloat64CpuReference) {
  const std::string why = whyNoCuda();
  if (!why.empty()) GTEST_SKIP() << why;
  const AttentionCase c = attentionCases()[GetParam()];
  torch::manual_seed(3);
  PositionModule module(cudaConfigFor(c), /*trainLength=*/32);
  module->to(torch::kDouble);
  {
    torch::NoGradGuard guard;
    for (auto& p : module->parameters()) p.add_(0.2 * torch::randn_like(p));
  }
  const auto names = module->named_parameters().keys();
  const auto cpu64 = at::TensorOptions().dtype(at::kDouble);
  const auto gpu64 = cpu64.device(torch::kCUDA);
  for (bool factorized : {true, false}) {
    for (int64_t T : {1, 7, 64, 130}) {
      at::Tensor q = randomQK(2, c.heads, T, c.headDim, at::kDouble, 21);
      at::Tensor k = randomQK(2, c.heads, T, c.headDim, at::kDouble, 22);
      at::Tensor v = randomQK(2, c.heads, T, c.headDim, at::kDouble, 23);
      at::Tensor w = randomQK(2, c.heads, T, c.headDim, at::kDouble, 24);
      at::Tensor pos = positions(0, T);
      module->to(torch::kCPU);
      const AttentionOutputs ref = runAttention(module, leaf(q, cpu64), leaf(k, cpu64),
                                                leaf(v, cpu64), pos, w, factorized, {true});
      module->to(torch::kCUDA);
      at::Tensor qg = leaf(q, gpu64), kg = leaf(k, gpu64), vg = leaf(v, gpu64);
      at::Tensor posg = pos.to(torch::kCUDA);
      const std::string where =
          c.id + (factorized ? " factorized" : " direct") + " T=" + std::to_string(T);
      {
        torch::NoGradGuard guard;
        TrainedScore score = module->trainedScore(qg, kg, posg, factorized);
        if (score.fq.defined())  // the factorized form: PosLab's kernel, not the generic path
          EXPECT_EQ(cudaAttentionRefusal(score, posg, vg), "") << where;
      }
      const AttentionOutputs got =
          runAttention(module, qg, kg, vg, posg, w.to(gpu64), factorized, {false});
      EXPECT_TRUE(got.y.is_cuda()) << where;
      EXPECT_LT(relError(got.y, ref.y), kTolerance64) << where << " values";
      for (size_t i = 0; i < ref.grads.size(); ++i) {
        const std::string name = i < 3 ? std::string(1, "qkv"[i]) : names[i - 3];
        EXPECT_LT(relError(got.grads[i], ref.grads[i]), kTolerance64) << where << " d" << name;
      }
      for (size_t i = T > 1 ? 0 : 2; i < 3; ++i)  // something to compare (as the CPU test)
        EXPECT_GT(ref.grads[i].abs().max().item<double>(), 0.0) << where;
    }
  }
}

// float32, as training runs: the kernel's values against the float64 CPU reference.
TEST_P(CudaFusedFamily, Float32ValuesMatchTheFloat64CpuReference) {
  const std::string why = whyNoCuda();
  if (!why.empty()) GTEST_SKIP() << why;
  const AttentionCase c = attentionCases()[GetParam()];
  torch::manual_seed(4);
  PositionModule module(cudaConfigFor(c), /*trainLength=*/32);
  torch::NoGradGuard guard;
  const int64_t T = 130;
  at::Tensor q = randomQK(2, c.heads, T, c.headDim, at::kDouble, 31);
  at::Tensor k = randomQK(2, c.heads, T, c.headDim, at::kDouble, 32);
  at::Tensor v = randomQK(2, c.heads, T, c.headDim, at::kDouble, 33);
  at::Tensor pos = positions(0, T);
  module->to(torch::kDouble);
  at::Tensor ref = causalAttention(module->scorer(q, k, pos, true), v, T);
  module->to(torch::kCUDA, torch::kFloat);
  const auto gpu32 = at::TensorOptions().dtype(at::kFloat).device(torch::kCUDA);
  at::Tensor posg = pos.to(torch::kCUDA);
  at::Tensor qg = q.to(gpu32), kg = k.to(gpu32), vg = v.to(gpu32);
  at::Tensor got = fusedCausalAttention(module->trainedScore(qg, kg, posg, true),
                                        module->scoreScale(), posg, qg, kg, vg, {});
  EXPECT_LT(relError(got, ref), kTolerance32) << c.id;
}

INSTANTIATE_TEST_SUITE_P(AllFamilies, CudaFusedFamily,
                         ::testing::Range<size_t>(0, attentionCases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return testing::attentionCaseName(info.param);
                         });

// Without CUDA the refusal names the reason, so that a skipped CUDA test is never mistaken for a
// passing one; with CUDA, CPU tensors are refused (they take the CPU kernel).
TEST(CudaFusedAttention, RefusalSaysWhy) {
  TrainedScore score;
  score.fq = at::zeros({1, 1, 4, 2});
  score.fk = at::zeros({1, 1, 4, 2});
  const std::string why = cudaAttentionRefusal(score, positions(0, 4), at::zeros({1, 1, 4, 2}));
  EXPECT_FALSE(why.empty());
  EXPECT_EQ(
      cudaFusedCausalAttention(score, 1.0, positions(0, 4), at::zeros({1, 1, 4, 2})).defined(),
      false);
}

}  // namespace
}  // namespace poslab
