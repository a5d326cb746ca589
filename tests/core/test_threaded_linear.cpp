// The threaded linear layer (model/threaded_linear.h) against at::linear in float64: values and
// the gradients of x, the weight and the bias, with and without a bias, at row counts that do
// not divide among the threads, and with fewer rows than threads; then the whole model at two
// threads (every product above the threshold threaded) against the same model at one.
//
// Tolerance: 1e-12 relative to the largest reference magnitude. Each output element is the same
// inner product on both sides, summed in BLAS's order; a slice left out, a wrong offset or a
// transposed operand moves it by O(1). The whole-model comparison allows 1e-10: torch's own
// reductions (the norms, the loss) may sum in another order with two threads.
#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "attention_cases.h"
#include "model/threaded_linear.h"
#include "model/transformer.h"
#include "util/parallel_for.h"

namespace poslab {
namespace {

using testing::relError;

constexpr double kThreadedLinearTolerance = 1e-12;

// Sets torch's intra-op threads for the scope.
struct IntraOpThreads {
  explicit IntraOpThreads(int n) : before(at::get_num_threads()) { at::set_num_threads(n); }
  ~IntraOpThreads() { at::set_num_threads(before); }
  int before;
};

TEST(ThreadedLinear, ValuesAndGradientsMatchLinear) {
  IntraOpThreads threads(2);
  torch::manual_seed(1);
  for (int64_t rows : {1, 2, 1001}) {
    for (bool withBias : {true, false}) {
      at::Tensor x = torch::randn({rows, 64}, torch::kDouble).requires_grad_();
      at::Tensor w = torch::randn({96, 64}, torch::kDouble).requires_grad_();
      at::Tensor b = withBias ? torch::randn({96}, torch::kDouble).requires_grad_() : at::Tensor();
      at::Tensor dy = torch::randn({rows, 96}, torch::kDouble);
      const std::string where = "rows " + std::to_string(rows) + (withBias ? " bias" : "");
      at::Tensor want = at::linear(x, w, b);
      want.backward(dy);
      at::Tensor dxWant = x.grad().clone(), dwWant = w.grad().clone();
      at::Tensor dbWant = withBias ? b.grad().clone() : at::Tensor();
      x.grad().zero_();
      w.grad().zero_();
      if (withBias) b.grad().zero_();
      at::Tensor got = threadedLinear(x, w, b);
      got.backward(dy);
      EXPECT_LT(relError(got.detach(), want.detach()), kThreadedLinearTolerance) << where;
      EXPECT_LT(relError(x.grad(), dxWant), kThreadedLinearTolerance) << where << " dx";
      EXPECT_LT(relError(w.grad(), dwWant), kThreadedLinearTolerance) << where << " dW";
      if (withBias)
        EXPECT_LT(relError(b.grad(), dbWant), kThreadedLinearTolerance) << where << " db";
    }
  }
}

// (B, T, in) input, as the model calls it: the shape comes back.
TEST(ThreadedLinear, KeepsLeadingDimensions) {
  IntraOpThreads threads(2);
  at::Tensor x = torch::randn({3, 500, 64}, torch::kDouble);
  at::Tensor w = torch::randn({96, 64}, torch::kDouble), b = torch::randn({96}, torch::kDouble);
  at::Tensor got = threadedLinear(x, w, b);
  EXPECT_EQ(got.sizes(), (std::vector<int64_t>{3, 500, 96}));
  EXPECT_LT(relError(got, at::linear(x, w, b)), kThreadedLinearTolerance);
  if (!parallelLoopsRunInParallel())
    GTEST_SKIP() << "this build's parallel loops run on one thread (no OpenMP: a PyPI LibTorch)";
  EXPECT_TRUE(linearRunsThreaded(x, 64, 96));
  EXPECT_FALSE(linearRunsThreaded(torch::randn({4, 64}), 64, 96));  // too small to split
  IntraOpThreads one(1);
  EXPECT_FALSE(linearRunsThreaded(x, 64, 96));  // one thread: the layer's own forward
}

// The model at two threads (its linears threaded: 2 x 300 rows x 64 x 192 multiply-adds and up;
// the fused kernel's batch split over the threads, 300 tokens being three tiles) against the same
// model at one thread: logits and every parameter's gradient, for a factorized, a direct-form and
// a bias family.
class TwoThreads : public ::testing::TestWithParam<std::string> {};

TEST_P(TwoThreads, WholeModelMatchesOneThread) {
  ModelConfig cfg;
  cfg.family = GetParam();
  cfg.vocab = 7;
  cfg.dModel = 64;
  cfg.heads = 4;
  cfg.layers = 2;
  torch::manual_seed(4);
  TinyTransformer model(cfg, /*trainLength=*/300);
  model->to(torch::kDouble);
  torch::Tensor tokens = torch::randint(0, 7, {2, 300}, torch::kLong);
  torch::Tensor targets = torch::randint(0, 7, {2, 300}, torch::kLong);
  std::map<std::string, at::Tensor> oneThread;
  at::Tensor logitsOne;
  for (int threads : {1, 2}) {
    IntraOpThreads scope(threads);
    model->zero_grad();
    torch::Tensor logits = model->forward(tokens);
    torch::nn::functional::cross_entropy(logits.reshape({-1, 7}), targets.reshape({-1})).backward();
    if (threads == 1) {
      logitsOne = logits.detach();
      for (const auto& p : model->named_parameters()) oneThread[p.key()] = p.value().grad().clone();
      continue;
    }
    EXPECT_LT(relError(logits.detach(), logitsOne), 1e-10);
    for (const auto& p : model->named_parameters())
      EXPECT_LT(relError(p.value().grad(), oneThread[p.key()]), 1e-10) << p.key();
  }
}

INSTANTIATE_TEST_SUITE_P(Families, TwoThreads,
                         ::testing::Values("rope", "jordan-stabilized", "alibi"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

}  // namespace
}  // namespace poslab
