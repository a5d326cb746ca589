// Activation recomputation (model/recompute.h, run.recompute_activations): the model with every
// block recomputed in the backward gives the plain model's logits and the gradient of every
// parameter, for every family of the registry, through the fused kernel (T past its tile, so the
// re-run holds the kernel's own backward and, for the direct form and the biases, its nested
// autograd calls) and through the materialised path; and a trainer with the option follows the
// plain trainer's run.
//
// Tolerance: 1e-12 relative to the largest reference magnitude (float64). Recomputation runs the
// same operations on the same inputs, so the values agree exactly and the gradients at most by
// the order in which autograd sums a tensor's uses; a block left out of the backward, a
// parameter whose gradient is dropped or a re-run on different inputs moves them by 1e-3 or more.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <map>

#include "attention_cases.h"
#include "model/recompute.h"
#include "train/trainer.h"

namespace poslab {
namespace {

using testing::attentionCases;
using testing::relError;

constexpr double kRecomputeTolerance = 1e-12;

class RecomputedFamily : public ::testing::TestWithParam<size_t> {};

TEST_P(RecomputedFamily, WholeModelGradientsMatchThePlainModel) {
  const testing::AttentionCase c = attentionCases()[GetParam()];
  torch::manual_seed(5);
  TinyTransformer model(testing::attentionModelConfig(c, /*layers=*/2), /*trainLength=*/32);
  model->to(torch::kDouble);
  {
    torch::NoGradGuard guard;  // off the initial values: no gradient vanishes by symmetry
    for (auto& p : model->parameters()) p.add_(0.2 * torch::randn_like(p));
  }
  for (int64_t T : {20, 45}) {  // T 20: one fused tile (materialised); 45: three tiles of 16
    torch::Tensor tokens = torch::randint(0, 7, {3, T}, torch::kLong);
    torch::Tensor targets = torch::randint(0, 7, {3, T}, torch::kLong);
    model->useFusedAttention(true, /*tile=*/16);
    std::map<std::string, at::Tensor> plainGrads;
    at::Tensor plainLogits;
    for (bool recompute : {false, true}) {
      model->recomputeBlocks = recompute;
      model->zero_grad();
      torch::Tensor logits = model->forward(tokens);
      torch::nn::functional::cross_entropy(logits.reshape({-1, 7}), targets.reshape({-1}))
          .backward();
      const std::string where = c.id + " T=" + std::to_string(T);
      if (!recompute) {
        plainLogits = logits.detach();
        for (const auto& p : model->named_parameters())
          plainGrads[p.key()] = p.value().grad().clone();
        continue;
      }
      EXPECT_LT(relError(logits.detach(), plainLogits), kRecomputeTolerance) << where << " logits";
      for (const auto& p : model->named_parameters()) {
        ASSERT_TRUE(p.value().grad().defined()) << where << " " << p.key() << " has no gradient";
        EXPECT_LT(relError(p.value().grad(), plainGrads[p.key()]), kRecomputeTolerance)
            << where << " " << p.key();
      }
    }
    // The comparison compares something: every block's weights get a gradient.
    for (const auto& [name, g] : plainGrads)
      if (name.find("fc1.weight") != std::string::npos)
        EXPECT_GT(g.abs().max().item<double>(), 0.0) << c.id << " " << name;
  }
}

INSTANTIATE_TEST_SUITE_P(AllFamilies, RecomputedFamily,
                         ::testing::Range<size_t>(0, attentionCases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return testing::attentionCaseName(info.param);
                         });

// The function on its own, on a case worked by hand: y = w * x^2 (elementwise), dy/dx = 2 w x,
// dy/dw = x^2, with the gradient of y's sum.
TEST(Recompute, GradientsOfAKnownFunction) {
  at::Tensor x = torch::tensor({1.0, -2.0, 3.0}, torch::kDouble).requires_grad_();
  at::Tensor w = torch::tensor({0.5, 4.0, -1.0}, torch::kDouble).requires_grad_();
  int calls = 0;
  at::Tensor y = recomputedInBackward(
      [&](const at::Tensor& in) {
        ++calls;
        return w * in * in;
      },
      x, {w});
  EXPECT_EQ(calls, 1);
  y.sum().backward();
  EXPECT_EQ(calls, 2);  // run again in the backward
  EXPECT_TRUE(torch::allclose(x.grad(), torch::tensor({1.0, -16.0, -6.0}, torch::kDouble)));
  EXPECT_TRUE(torch::allclose(w.grad(), torch::tensor({1.0, 4.0, 9.0}, torch::kDouble)));
  // Without grad mode it is the function, called once.
  torch::NoGradGuard noGrad;
  recomputedInBackward([&](const at::Tensor& in) { return (++calls, in); }, x, {w});
  EXPECT_EQ(calls, 3);
}

// A trainer with run.recompute_activations follows the plain trainer: the same losses and
// gradient norms step by step (float32, relative 1e-5: the gradients may differ in the order of
// their last additions, which the next steps carry on), with the fused kernel in use.
TEST(Recompute, TrainerFollowsThePlainRun) {
  for (const std::string family : {"rope", "jordan-stabilized", "alibi"}) {
    TrainConfig c;
    c.model.family = family;
    c.model.heads = 2;
    c.model.layers = 2;
    c.model.dModel = 32;
    c.task.id = "kernel-lm";
    c.task.trainLength = 150;  // past the kernel's tile of 128
    c.optim.batch = 4;
    c.run.seed = 3;
    c.run.steps = 4;
    c.run.evalLengths = {150};
    c.run.evalSequences = 2;
    Trainer plain(c);
    c.run.recomputeActivations = true;
    Trainer recomputed(c);
    for (int i = 0; i < 4; ++i) {
      const Snapshot a = plain.step(), b = recomputed.step();
      EXPECT_NEAR(b.loss, a.loss, 1e-5 * std::abs(a.loss)) << family << " step " << i;
      EXPECT_NEAR(b.gradNorm, a.gradNorm, 1e-5 * std::abs(a.gradNorm)) << family << " step " << i;
    }
  }
}

}  // namespace
}  // namespace poslab
