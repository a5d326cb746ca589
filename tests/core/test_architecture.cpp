// The reference architectures' model and optimiser options (train/architecture.h, MATH 2.1.1):
// a query that may not attend to itself against a float64 masked softmax written here (values
// and gradients, fused and reference paths, 1e-8 absolute: the relative-shear Jordan family
// differs from its float64 formula by about 4e-9 at T = 11), the tied and 2-logit heads, bias-free
// linears, PyTorch's initialisation, the constant schedule, and the bundles as each reference's
// code sets them (jordan_rope/model.py + configs/kernel_lm.yaml; synthetic_query_lm.py).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>

#include "encodings/registry.h"
#include "io/json_fields.h"
#include "model/position_module.h"
#include "model/transformer.h"
#include "test_support.h"
#include "train/architecture.h"
#include "train/experiment_spec.h"
#include "train/trainer.h"
#include "util/error.h"

namespace poslab {
namespace {

ModelConfig modelFor(const std::string& family) {
  ModelConfig m;
  m.family = family;
  m.heads = 2;
  m.dModel = 8;
  m.layers = 1;
  m.vocab = 3;
  return m;
}

// Softmax over keys j < i of the float64 reference logits, row 0 = 0, then the projection.
// x (1, T, C) float64 -> (1, T, C).
torch::Tensor strictlyCausalReference(AttentionImpl& attn, const Encoding& enc,
                                      const torch::Tensor& x) {
  const int64_t T = x.size(1), C = x.size(2);
  auto [q, k, v] = attn.project(x);
  at::Tensor pos = testing::positions(0, T);
  // The full logit (scale and bias included) from MATH's float64 formulas.
  at::Tensor logits = testing::referenceLogits(enc, q.detach(), k.detach(), pos, pos);
  at::Tensor w = torch::zeros_like(logits);
  for (int64_t i = 1; i < T; ++i)
    w.select(2, i).narrow(-1, 0, i).copy_(torch::softmax(logits.select(2, i).narrow(-1, 0, i), -1));
  at::Tensor y = torch::matmul(w, v.detach());
  return attn.proj->forward(y.transpose(1, 2).reshape({1, T, C}));
}

class StrictlyCausal : public ::testing::TestWithParam<std::string> {};

// include_self = false: query i attends to j < i exactly, position 0 gives 0; the fused kernel
// (tile 4, T = 11: a partial tile) and the reference path agree in values and every gradient.
TEST_P(StrictlyCausal, MatchesTheMaskedSoftmaxOnBothPaths) {
  ModelConfig m = modelFor(GetParam());
  m.includeSelf = false;
  torch::manual_seed(3);
  Attention attn(m, 16);
  attn->to(torch::kDouble);
  const int64_t T = 11;
  torch::Tensor x = torch::randn({1, T, m.dModel}, torch::kDouble);
  torch::Tensor pos = torch::arange(T, torch::kLong);
  auto enc = makeEncoding(m.family, resolvedFamilyParams(m, 16));
  const torch::Tensor want = strictlyCausalReference(*attn, *enc, x);

  std::vector<torch::Tensor> grads[2];
  for (int path = 0; path < 2; ++path) {
    attn->path = path == 1 ? AttentionPath::kFused : AttentionPath::kReference;
    attn->fusedTile = 4;
    attn->zero_grad();
    torch::Tensor got = attn->forward(x, pos);
    EXPECT_LT((got - want).abs().max().item<double>(), 1e-8) << GetParam() << " path " << path;
    // Position 0 attends to nothing: its output is the projection of 0, the projection's bias.
    EXPECT_LT((got.select(1, 0).squeeze(0) - attn->proj->bias).abs().max().item<double>(), 1e-12);
    got.pow(2).sum().backward();
    for (const auto& p : attn->parameters())
      grads[path].push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
  }
  for (size_t i = 0; i < grads[0].size(); ++i)
    EXPECT_LT((grads[0][i] - grads[1][i]).abs().max().item<double>(), 1e-8) << "gradient " << i;
}

INSTANTIATE_TEST_SUITE_P(Families, StrictlyCausal,
                         ::testing::Values("nope", "rope", "alibi", "rope-alibi",
                                           "jordan-stabilized"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

TEST(Architecture, TiedTwoLogitHeadReadsTheEmbeddingRows) {
  ModelConfig m = modelFor("rope");
  m.tieEmbedding = true;
  m.answerLogits = 2;
  m.bias = false;
  TinyTransformer model(m, 16);
  for (const auto& p : model->named_parameters()) {
    EXPECT_EQ(p.key().find("head"), std::string::npos) << p.key();
    EXPECT_EQ(p.key().find(".bias"), std::string::npos) << p.key();  // RMSNorm has none either
  }
  torch::Tensor tokens = torch::tensor({0, 1, 2, 1}, torch::kLong).view({1, 4});
  torch::NoGradGuard g;
  ASSERT_EQ(model->forward(tokens).size(-1), 2);
  // Logit c is h . E_c: with embedding rows 0 and 1 equal, the two logits are equal everywhere
  // (an untied head would keep them apart).
  model->embed->weight[0].copy_(model->embed->weight[1]);
  torch::Tensor logits = model->forward(tokens);
  EXPECT_LT((logits.select(-1, 0) - logits.select(-1, 1)).abs().max().item<double>(), 1e-6);
  EXPECT_GT(logits.abs().max().item<double>(), 1e-3);
}

TEST(Architecture, UntiedAnswerHeadHasThatManyOutputs) {
  ModelConfig m = modelFor("rope");
  m.answerLogits = 2;
  TinyTransformer model(m, 16);
  EXPECT_EQ(model->head->weight.size(0), 2);
  EXPECT_TRUE(model->head->bias.defined());
}

TEST(Architecture, PytorchInitialisationKeepsTheLayersDefaults) {
  ModelConfig m = modelFor("rope");
  m.dModel = 64;
  m.vocab = 512;
  torch::manual_seed(0);
  TinyTransformer gpt2(m, 16);
  m.init = "pytorch";
  torch::manual_seed(0);
  TinyTransformer pytorch(m, 16);
  // nn.Embedding's default is N(0, 1); GPT-2's N(0, 0.02). 32768 draws: std within 3%.
  EXPECT_NEAR(pytorch->embed->weight.std().item<double>(), 1.0, 0.03);
  EXPECT_NEAR(gpt2->embed->weight.std().item<double>(), 0.02, 0.001);
  // nn.Linear's default: U(-1/sqrt(in), 1/sqrt(in)) for weights and biases (kaiming a = sqrt 5).
  const double bound = 1.0 / std::sqrt(64.0);
  EXPECT_LE(pytorch->blocks[0]->fc1->weight.abs().max().item<double>(), bound);
  EXPECT_GT(pytorch->blocks[0]->fc1->bias.abs().max().item<double>(), 0.5 * bound);
}

TEST(Architecture, ConstantScheduleKeepsThePeakAfterWarmup) {
  OptimConfig o;
  o.lr = 0.01;
  o.schedule = "constant";
  o.warmup = 4;
  EXPECT_DOUBLE_EQ(learningRateAt(o, 0, 100), 0.01 * 1 / 4);
  for (long long s : {4LL, 50LL, 99LL}) EXPECT_DOUBLE_EQ(learningRateAt(o, s, 100), 0.01);
  o.schedule = "cosine";
  EXPECT_LT(learningRateAt(o, 99, 100), 0.0011);
}

// The bundles as each reference's code sets them.
TEST(Architecture, BundlesMatchTheReferences) {
  TrainConfig j;
  applyArchitecture("jordan-reference", j);
  EXPECT_EQ(j.model.norm, "rms");
  EXPECT_FALSE(j.model.bias);           // nn.Linear(..., bias=False) throughout
  EXPECT_TRUE(j.model.tieEmbedding);    // lm_head.weight = embed.weight
  EXPECT_EQ(j.model.answerLogits, -1);  // logits[:, -1, :2]
  EXPECT_EQ(j.model.mlpRatio, 2);       // kernel_lm.yaml model.mlp_ratio
  EXPECT_EQ(j.optim.schedule, "constant");
  EXPECT_EQ(j.optim.decay, "all");  // AdamW(model.parameters(), weight_decay=0.01)
  EXPECT_DOUBLE_EQ(j.optim.weightDecay, 0.01);
  EXPECT_DOUBLE_EQ(j.optim.beta2, 0.999);
  EXPECT_DOUBLE_EQ(j.optim.gradClip, 1.0);
  TrainConfig p;
  applyArchitecture("pj-reference", p);
  EXPECT_EQ(p.model.norm, "layer");
  EXPECT_TRUE(p.model.bias);
  EXPECT_FALSE(p.model.tieEmbedding);  // head = nn.Linear(embed_dim, 2)
  EXPECT_FALSE(p.model.includeSelf);   // include_self=False
  EXPECT_DOUBLE_EQ(p.optim.weightDecay, 1e-4);
  EXPECT_DOUBLE_EQ(p.optim.gradClip, 0);  // no clip_grad_norm_ in its loop
  TrainConfig back;
  applyArchitecture("pj-reference", back);
  applyArchitecture("poslab", back);
  EXPECT_EQ(nlohmann::json(back), nlohmann::json(TrainConfig{}));
  EXPECT_THROW(applyArchitecture("gpt", back), InvalidArgument);
}

TEST(Architecture, AnswerLogitsFollowTheTask) {
  TrainConfig c = testing::tinyKernelLmRun("rope", 2, 8, 12, 4, 2);
  applyArchitecture("pj-reference", c);
  Trainer t(c);
  EXPECT_EQ(t.config().model.answerLogits, 2);  // kernel-lm's answers are bits
  t.step();
  t.step();
  EXPECT_TRUE(std::isfinite(t.evaluate({12}, 4).front().loss));
  c.task.id = "indirect-indexing";
  c.task.trainLength = 32;
  c.run.evalLengths = {32};
  c.model.answerLogits = 2;
  try {
    Trainer bad(c);
    ADD_FAILURE() << "answer_logits 2 on indirect-indexing was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("model.answer_logits"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("indirect-indexing"), std::string::npos) << e.what();
  }
}

TEST(Architecture, PresetNamesItsArchitecture) {
  nlohmann::json j = {{"families", {"rope"}},
                      {"architecture", "pj-reference"},
                      {"config", {{"task", {{"id", "kernel-lm"}}}, {"model", {{"mlp_ratio", 3}}}}}};
  ExperimentSpec s = readExperiment(j, JsonPath{"test", ""});
  EXPECT_EQ(s.architecture, "pj-reference");
  EXPECT_FALSE(s.base.model.includeSelf);
  EXPECT_EQ(s.base.model.mlpRatio, 3);  // config overrides the bundle
  EXPECT_EQ(readExperiment(experimentToJson(s), JsonPath{}).base.model.mlpRatio, 3);
  j["architecture"] = "gpt";
  try {
    readExperiment(j, JsonPath{"test", ""});
    ADD_FAILURE() << "unknown architecture accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("architecture"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace poslab
