// Frequency usage (MATH 4.6) of PoPE and RoPE models: hand-built models whose queries and keys are
// constants set through the qkv biases, so every magnitude (softplus(b) for PoPE, a pair's norm for
// RoPE) and every share is known in closed form; the fast path (prefix sums over keys, chunked
// batches) against the float64 pair loop on random float64 models; the trainer's entry point and
// its refusals (an ALiBi checkpoint, bad sizes).
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "analysis/pope_frequency_usage.h"
#include "encodings/pope.h"
#include "encodings/schedules.h"
#include "model/transformer.h"
#include "tasks/task.h"
#include "test_support.h"
#include "train/trainer.h"
#include "util/error.h"

namespace poslab {
namespace {

constexpr long long kC = 16, kH = 2, kHs = kC / kH;  // d_model, heads, head size (frequencies)
constexpr size_t kHeads = kH, kFreqs = kHs;

ModelConfig popeModel(long long layers, const std::string& family = "pope") {
  ModelConfig m;
  m.family = family;
  m.vocab = 5;
  m.dModel = kC;
  m.heads = kH;
  m.layers = layers;
  return m;
}

// Written out from the definition ln(1 + e^x), not the library's softplus.
double softplusByDefinition(double x) {
  return std::log(1.0 + std::exp(x));
}

Batch tokensBatch(const torch::Tensor& tokens) {  // (S, T) int64: all the analysis reads
  Batch b;
  b.tokens = tokens;
  return b;
}

// Query bias at (head h, component c) of the qkv projection's output [q | k | v], each (H, hs).
int64_t qIndex(long long h, long long c) {
  return h * kHs + c;
}
int64_t kIndex(long long h, long long c) {
  return kC + h * kHs + c;
}

std::string what(const std::function<void()>& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "(no InvalidArgument)";
}

// qkv weights zero and biases set: q and k are the same constants at every token and position.
// Components off the chosen ones get -60, softplus(-60) ~ 9e-27, so their share is ~1e-26.
TEST(PopeFrequencyUsage, HandBuiltModelPutsAllUsageOnTheChosenFrequencies) {
  torch::manual_seed(1);
  TinyTransformer model(popeModel(/*layers=*/2), /*trainLength=*/16);
  model->eval();
  // Layer 1: head 0 uses component 3 alone; head 1 components 1 and 6 with q = 2 on both and
  // k = 2 on c = 1, 4 on c = 6. Layer 2: head 0 component 0 alone, head 1 component 7 alone.
  struct Set {
    long long layer, head, c;
    double q, k;
  };
  const std::vector<Set> sets = {
      {0, 0, 3, 5, 5}, {0, 1, 1, 2, 2}, {0, 1, 6, 2, 4}, {1, 0, 0, 1, 3}, {1, 1, 7, -1, 0.5}};
  {
    torch::NoGradGuard g;
    for (auto& b : model->blocks) {
      b->attn->qkv->weight.zero_();
      b->attn->qkv->bias.fill_(-60.0);
    }
    for (const Set& s : sets) {
      model->blocks[s.layer]->attn->qkv->bias[qIndex(s.head, s.c)] = s.q;
      model->blocks[s.layer]->attn->qkv->bias[kIndex(s.head, s.c)] = s.k;
    }
  }
  const Batch tokens = tokensBatch(torch::randint(0, 5, {3, 9}, torch::kLong));  // (S, T)
  const PopeFrequencyUsage u = popeFrequencyUsage(*model, tokens, /*rowsPerForward=*/2);

  ASSERT_EQ(u.usage.size(), 2u);
  ASSERT_EQ(u.usage[0].size(), kHeads);
  ASSERT_EQ(u.usage[0][0].size(), kFreqs);
  EXPECT_EQ(u.family, "pope");
  EXPECT_EQ(u.sequences, 3);
  EXPECT_EQ(u.length, 9);
  // Closed forms: one component alone carries the whole share; layer 1 head 1 splits
  // sp(2) sp(2) : sp(2) sp(4), i.e. sp(2) / (sp(2) + sp(4)) on c = 1.
  const double share1 =
      softplusByDefinition(2) / (softplusByDefinition(2) + softplusByDefinition(4));
  std::vector<std::vector<std::vector<double>>> expected(
      2, std::vector<std::vector<double>>(kH, std::vector<double>(kHs, 0.0)));
  expected[0][0][3] = 1;
  expected[0][1][1] = share1;
  expected[0][1][6] = 1 - share1;
  expected[1][0][0] = 1;
  expected[1][1][7] = 1;
  for (size_t l = 0; l < 2; ++l)
    for (size_t h = 0; h < kHeads; ++h)
      for (size_t c = 0; c < kFreqs; ++c)
        EXPECT_NEAR(u.usage[l][h][c], expected[l][h][c], 1e-12)
            << "layer " << l << " head " << h << " c " << c;
  EXPECT_NEAR(u.layerUsage[0][3], 0.5, 1e-12);  // head 0's 1 and head 1's 0, averaged
  EXPECT_NEAR(u.layerUsage[0][1], share1 / 2, 1e-12);
  // The magnitudes are the constants' softplus, and A = mu_q mu_k for constant q, k.
  for (const Set& s : sets) {
    EXPECT_NEAR(u.queryMagnitude[s.layer][s.head][s.c], softplusByDefinition(s.q),
                1e-6 * softplusByDefinition(s.q));
    EXPECT_NEAR(u.keyMagnitude[s.layer][s.head][s.c], softplusByDefinition(s.k),
                1e-6 * softplusByDefinition(s.k));
    EXPECT_NEAR(u.amplitude[s.layer][s.head][s.c],
                softplusByDefinition(s.q) * softplusByDefinition(s.k),
                1e-6 * softplusByDefinition(s.q) * softplusByDefinition(s.k));
  }
  EXPECT_LT(u.queryMagnitude[0][0][0], 1e-25);
  // theta_c = 10000^(-c/8) (the family's default base), written out.
  ASSERT_EQ(u.theta.size(), kFreqs);
  for (long long c = 0; c < kHs; ++c)
    EXPECT_NEAR(u.theta[c], std::pow(10000.0, -static_cast<double>(c) / kHs), 1e-15);
  EXPECT_NEAR(effectiveFrequencies(u.usage[1][0]), 1.0, 1e-12);
  // Layer 2: both heads on one frequency each, averaged: shares 1/2, 1/2 -> 2 frequencies.
  ASSERT_EQ(u.layerEffectiveFrequencies.size(), 2u);
  EXPECT_NEAR(u.layerEffectiveFrequencies[1], 2.0, 1e-9);
}

// Random weights large enough that q and k vary with the token and, from layer 2 on, with the
// position: the prefix-sum fast path, fed two sequences per forward pass, agrees with the
// explicit loop over causal pairs. The model runs in float64 so both see identical q, k.
void expectFastPathMatchesPairLoop(const std::string& family) {
  SCOPED_TRACE(family);
  torch::manual_seed(7);
  TinyTransformer model(popeModel(/*layers=*/2, family), /*trainLength=*/16);
  model->to(torch::kDouble);
  model->eval();
  {
    torch::NoGradGuard g;
    for (auto& p : model->parameters())
      if (p.dim() == 2) p.normal_(0.0, 0.6);
  }
  const Batch tokens = tokensBatch(torch::randint(0, 5, {5, 13}, torch::kLong));
  const PopeFrequencyUsage fast = popeFrequencyUsage(*model, tokens, /*rowsPerForward=*/2);
  const PopeFrequencyUsage ref = popeFrequencyUsageReference(*model, tokens);
  auto expectClose = [](const auto& a, const auto& b, const char* name) {
    ASSERT_EQ(a.size(), b.size()) << name;
    for (size_t l = 0; l < a.size(); ++l)
      for (size_t h = 0; h < a[l].size(); ++h)
        for (size_t c = 0; c < a[l][h].size(); ++c)
          EXPECT_NEAR(a[l][h][c], b[l][h][c], 1e-12 * std::abs(b[l][h][c]) + 1e-300)
              << name << " layer " << l << " head " << h << " c " << c;
  };
  expectClose(fast.queryMagnitude, ref.queryMagnitude, "query magnitude");
  expectClose(fast.keyMagnitude, ref.keyMagnitude, "key magnitude");
  expectClose(fast.amplitude, ref.amplitude, "amplitude");
  expectClose(fast.usage, ref.usage, "usage");
  // Not a degenerate case: the shares are spread and differ between heads and layers.
  const size_t F = ref.theta.size();
  EXPECT_EQ(F, family == "pope" ? kFreqs : kFreqs / 2);
  double spread = 0;
  for (size_t c = 0; c < F; ++c)
    spread = std::max(spread, std::abs(ref.usage[1][0][c] - 1.0 / static_cast<double>(F)));
  EXPECT_GT(spread, 0.01);
  for (const auto& layer : ref.usage)
    for (const auto& head : layer) {
      double total = 0;
      for (double p : head) total += p;
      EXPECT_NEAR(total, 1.0, 1e-12);
    }
}

TEST(PopeFrequencyUsage, FastPathMatchesFloat64PairLoop) {
  expectFastPathMatchesPairLoop("pope");
  expectFastPathMatchesPairLoop("rope");
}

// RoPE: pair c of head h is components (2c, 2c + 1); its magnitude is the pair's norm, which the
// rotation keeps. Biases: layer 1 head 0 pair 1 q = (3, 4), k = (0, 2): |q| |k| = 10 alone; head 1
// pair 0 q = (1, 0), k = (1, 0) and pair 3 q = (0, 2), k = (3, 0): amplitudes 1 and 6, shares 1/7
// and 6/7; layer 2 head 0 pair 2 alone, head 1 pair 0 alone. Every other component is 0.
TEST(PopeFrequencyUsage, RopeUsesPairNormsOverItsHalfAsManyFrequencies) {
  torch::manual_seed(2);
  TinyTransformer model(popeModel(/*layers=*/2, "rope"), /*trainLength=*/16);
  model->eval();
  struct Set {
    long long layer, head, component;
    double q, k;
  };
  const std::vector<Set> sets = {{0, 0, 2, 3, 0}, {0, 0, 3, 4, 2}, {0, 1, 0, 1, 1},
                                 {0, 1, 6, 0, 3}, {0, 1, 7, 2, 0}, {1, 0, 4, 1, 1},
                                 {1, 0, 5, 1, 1}, {1, 1, 0, 2, 0}, {1, 1, 1, 0, 5}};
  {
    torch::NoGradGuard g;
    for (auto& b : model->blocks) {
      b->attn->qkv->weight.zero_();
      b->attn->qkv->bias.zero_();
    }
    for (const Set& s : sets) {
      model->blocks[s.layer]->attn->qkv->bias[qIndex(s.head, s.component)] = s.q;
      model->blocks[s.layer]->attn->qkv->bias[kIndex(s.head, s.component)] = s.k;
    }
  }
  const Batch tokens = tokensBatch(torch::randint(0, 5, {2, 7}, torch::kLong));  // (S, T)
  const PopeFrequencyUsage u = popeFrequencyUsage(*model, tokens);
  EXPECT_EQ(u.family, "rope");
  const size_t F = kFreqs / 2;
  ASSERT_EQ(u.theta.size(), F);
  for (size_t c = 0; c < F; ++c)  // RoPE's theta_c = 10000^(-2c/hs), written out
    EXPECT_NEAR(u.theta[c], std::pow(10000.0, -2.0 * static_cast<double>(c) / kHs), 1e-15);
  std::vector<std::vector<std::vector<double>>> expected(
      2, std::vector<std::vector<double>>(kH, std::vector<double>(F, 0.0)));
  expected[0][0][1] = 1;
  expected[0][1][0] = 1.0 / 7;
  expected[0][1][3] = 6.0 / 7;
  expected[1][0][2] = 1;
  expected[1][1][0] = 1;
  ASSERT_EQ(u.usage.size(), 2u);
  for (size_t l = 0; l < 2; ++l)
    for (size_t h = 0; h < kHeads; ++h) {
      ASSERT_EQ(u.usage[l][h].size(), F);
      for (size_t c = 0; c < F; ++c)
        EXPECT_NEAR(u.usage[l][h][c], expected[l][h][c], 1e-12)
            << "layer " << l << " head " << h << " pair " << c;
    }
  EXPECT_NEAR(u.queryMagnitude[0][0][1], 5.0, 1e-12);  // |(3, 4)|
  EXPECT_NEAR(u.keyMagnitude[0][0][1], 2.0, 1e-12);
  EXPECT_NEAR(u.amplitude[0][0][1], 10.0, 1e-12);
  EXPECT_NEAR(u.amplitude[1][1][0], 2.0 * 5.0, 1e-12);  // |(2, 0)| |(0, 5)|
  const PopeFrequencyUsage ref = popeFrequencyUsageReference(*model, tokens);
  for (size_t l = 0; l < 2; ++l)
    for (size_t h = 0; h < kHeads; ++h)
      for (size_t c = 0; c < F; ++c) EXPECT_NEAR(ref.usage[l][h][c], expected[l][h][c], 1e-12);
}

TEST(PopeFrequencyUsage, EffectiveFrequenciesIsExpOfEntropy) {
  EXPECT_NEAR(effectiveFrequencies(std::vector<double>(8, 0.125)), 8.0, 1e-12);
  EXPECT_NEAR(effectiveFrequencies({1, 0, 0, 0}), 1.0, 1e-15);
  EXPECT_NEAR(effectiveFrequencies({0.5, 0, 0.5, 0}), 2.0, 1e-12);
  EXPECT_TRUE(std::isnan(effectiveFrequencies({NAN, 1})));
}

TEST(PopeFrequencyUsage, RefusesAnotherFamilyNamingIt) {
  TinyTransformer model(popeModel(1, "alibi"), 16);
  const Batch tokens = tokensBatch(torch::zeros({1, 4}, torch::kLong));
  const std::string msg = what([&] { popeFrequencyUsage(*model, tokens); });
  EXPECT_NE(msg.find("PoPE or RoPE"), std::string::npos) << msg;
  EXPECT_NE(msg.find("family is alibi"), std::string::npos) << msg;
  EXPECT_NE(what([&] { popeFrequencyUsageReference(*model, tokens); }).find("family is alibi"),
            std::string::npos);
}

// What the live view asks instead of comparing family ids: the two families, PoPE first, and each
// one's schedule as MATH 1.9 (theta_c = base^(-c/D), D frequencies) and 1.2 (base^(-2c/D), D/2)
// write it.
TEST(PopeFrequencyUsage, NamesItsFamiliesAndTheirSchedules) {
  EXPECT_EQ(frequencyUsageFamilies(), (std::vector<std::string>{"pope", "rope"}));
  EXPECT_EQ(frequencySchedule("pope"), "θ_c = base^{−c/D}");
  EXPECT_EQ(frequencySchedule("rope"), "θ_c = base^{−2c/D}");
  EXPECT_EQ(frequencySchedule("alibi"), "");
  EXPECT_NO_THROW(requireFrequencyUsageFamily("rope"));
  EXPECT_THROW(requireFrequencyUsageFamily("alibi"), InvalidArgument);
}

std::string popeUsageScratch(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("poslab-pope-usage-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

// An ALiBi checkpoint is refused by name; a PoPE or RoPE one gives the same usage before and after
// the round trip (its own seeded stream), with every share summing to 1.
TEST(PopeFrequencyUsage, TrainerRefusesAnAlibiCheckpointAndReproducesPopeAndRopeOnes) {
  for (const std::string family : {"alibi", "rope", "pope"}) {
    TrainConfig cfg = testing::tinyKernelLmRun(family, /*heads=*/2, /*dModel=*/16,
                                               /*trainLength=*/12, /*batch=*/4, /*steps=*/2);
    Trainer trainer(cfg);
    trainer.step();
    trainer.step();
    const std::string path = popeUsageScratch(family + ".pt");
    trainer.saveCheckpoint(path);
    auto loaded = Trainer::fromCheckpoint(path);
    std::filesystem::remove(path);
    if (family == "alibi") {
      const std::string msg = what([&] { popeFrequencyUsage(loaded->inspected(), 12, 4); });
      EXPECT_NE(msg.find("family is alibi"), std::string::npos) << msg;
      continue;
    }
    const size_t F = family == "pope" ? 8 : 4;  // head size 8: PoPE's 8 components, RoPE's 4 pairs
    const PopeFrequencyUsage a = popeFrequencyUsage(trainer.inspected(), 12, 4);
    const PopeFrequencyUsage b = popeFrequencyUsage(loaded->inspected(), 12, 4);
    ASSERT_EQ(a.usage.size(), 1u);
    ASSERT_EQ(a.usage[0].size(), 2u);
    ASSERT_EQ(a.usage[0][0].size(), F);
    EXPECT_EQ(a.theta,
              family == "pope" ? popeFrequencies(8, 10000.0) : ropeFrequencies(8, 10000.0));
    for (size_t h = 0; h < 2; ++h) {
      double total = 0;
      for (size_t c = 0; c < F; ++c) {
        EXPECT_DOUBLE_EQ(a.usage[0][h][c], b.usage[0][h][c]);
        total += a.usage[0][h][c];
      }
      EXPECT_NEAR(total, 1.0, 1e-12);
    }
    EXPECT_NE(what([&] { popeFrequencyUsage(trainer.inspected(), 12, 0); }).find("sequences 0"),
              std::string::npos);
    EXPECT_NE(
        what([&] { popeFrequencyUsage(trainer.inspected(), 1, 4); }).find("length 1 is outside"),
        std::string::npos);
  }
}

}  // namespace
}  // namespace poslab
