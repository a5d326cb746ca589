// Task generators (MATH 3) against brute-force references written here from the MATH formulas
// and the layouts documented in core/tasks/*.cpp: each label is recomputed from the tokens alone.
// Also: determinism (seeded std::mt19937_64, never torch's RNG), option and length checks.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "tasks/byte_lm.h"
#include "tasks/sector_teacher.h"
#include "tasks/task.h"
#include "test_support.h"
#include "util/error.h"

namespace poslab {
namespace {

TaskConfig config(const std::string& id, std::map<std::string, double> options = {}) {
  TaskConfig c;
  c.id = id;
  c.options = std::move(options);
  return c;
}

void expectSameBatch(const Batch& a, const Batch& b) {
  EXPECT_TRUE(at::equal(a.tokens, b.tokens));
  EXPECT_TRUE(at::equal(a.targets, b.targets));
  EXPECT_TRUE(at::equal(a.answer, b.answer));
  EXPECT_EQ(a.info.defined(), b.info.defined());
  if (a.info.defined()) EXPECT_TRUE(at::equal(a.info, b.info));
}

// Shapes, dtypes, and "scored only at the last position" for the classification tasks.
void expectLastPositionTask(const Batch& batch, long long B, long long T) {
  ASSERT_EQ(batch.tokens.sizes(), (at::IntArrayRef{B, T}));
  ASSERT_EQ(batch.targets.sizes(), (at::IntArrayRef{B, T}));
  ASSERT_EQ(batch.answer.sizes(), (at::IntArrayRef{B, T}));
  EXPECT_EQ(batch.tokens.scalar_type(), at::kLong);
  EXPECT_EQ(batch.targets.scalar_type(), at::kLong);
  EXPECT_EQ(batch.answer.scalar_type(), at::kBool);
  auto tg = batch.targets.accessor<int64_t, 2>();
  auto an = batch.answer.accessor<bool, 2>();
  for (long long b = 0; b < B; ++b)
    for (long long t = 0; t < T; ++t) {
      EXPECT_EQ(an[b][t], t == T - 1);
      if (t < T - 1) EXPECT_EQ(tg[b][t], -1);
    }
}

TEST(TaskRegistry, IdsAndUnknowns) {
  EXPECT_EQ(taskIds().size(), 5u);
  for (const auto& id : taskIds()) {
    if (id == "byte-lm" && !std::filesystem::exists(defaultCorpusDirectory())) continue;
    TaskConfig c = config(id);
    if (id == "sector-teacher") c.kernel = "phase";
    EXPECT_EQ(makeTask(c)->id(), id);
    c.options["no_such_option"] = 1;
    EXPECT_THROW(makeTask(c), InvalidArgument) << id;
  }
  EXPECT_THROW(makeTask(config("no-such-task")), InvalidArgument);
}

// ---- indirect indexing --------------------------------------------------------------------------

TEST(TaskIndirectIndexing, TargetIsCharacterAtSourcePlusOffset) {
  const long long A = 40, K = 5, B = 64;
  auto task = makeTask(config("indirect-indexing", {{"alphabet", A}, {"max_offset", K}}));
  EXPECT_EQ(task->vocabSize(), A + 1 + 2 * K);
  EXPECT_EQ(task->minLength(), 2 * K + 4);
  EXPECT_EQ(task->maxLength(), A + 3);
  std::set<long long> offsetsSeen;
  for (long long T : {task->minLength(), 20LL, task->maxLength()}) {
    const Batch batch = task->sample(B, T, 7);
    expectLastPositionTask(batch, B, T);
    EXPECT_FALSE(batch.info.defined());
    auto tok = batch.tokens.accessor<int64_t, 2>();
    auto tg = batch.targets.accessor<int64_t, 2>();
    const long long n = T - 3;
    for (long long b = 0; b < B; ++b) {
      std::set<int64_t> chars;
      for (long long i = 0; i < n; ++i) {
        ASSERT_GE(tok[b][i], 0);
        ASSERT_LT(tok[b][i], A);
        chars.insert(tok[b][i]);
      }
      EXPECT_EQ(static_cast<long long>(chars.size()), n) << "characters must be distinct";
      EXPECT_EQ(tok[b][n], A);  // SEP
      // Scan for the source; decode the offset token (A+1.. = -K..-1, then 1..K).
      long long src = -1;
      for (long long i = 0; i < n; ++i)
        if (tok[b][i] == tok[b][n + 1]) src = i;
      ASSERT_GE(src, 0);
      const long long code = tok[b][n + 2] - (A + 1);
      ASSERT_GE(code, 0);
      ASSERT_LT(code, 2 * K);
      const long long offset = code < K ? code - K : code - K + 1;
      offsetsSeen.insert(offset);
      ASSERT_GE(src + offset, 0);
      ASSERT_LT(src + offset, n);
      EXPECT_EQ(tg[b][T - 1], tok[b][src + offset]);
    }
  }
  EXPECT_EQ(static_cast<long long>(offsetsSeen.size()), 2 * K) << "every offset should occur";
}

TEST(TaskIndirectIndexing, Limits) {
  auto task = makeTask(config("indirect-indexing"));
  EXPECT_EQ(task->vocabSize(), 128 + 1 + 16);
  EXPECT_THROW(task->sample(2, task->minLength() - 1, 0), InvalidArgument);
  EXPECT_THROW(task->sample(2, task->maxLength() + 1, 0), InvalidArgument);
  EXPECT_THROW(task->sample(0, 32, 0), InvalidArgument);
  try {
    task->sample(2, 1000, 0);
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("[20, 131]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(makeTask(config("indirect-indexing", {{"alphabet", 7}})), InvalidArgument);
  EXPECT_THROW(makeTask(config("indirect-indexing", {{"alphabet", 8}, {"max_offset", 4}})),
               InvalidArgument);
  EXPECT_THROW(makeTask(config("indirect-indexing", {{"max_offset", 0}})), InvalidArgument);
  EXPECT_THROW(makeTask(config("indirect-indexing", {{"alphabet", 64.5}})), InvalidArgument);
}

// ---- kernel LM ----------------------------------------------------------------------------------

// K(d) from the reference's run_kernel_lm.py kernel_values: omega = 10000^(-2*3/D),
// omega2 = 10000^(-2*5/D), gamma 1e-4, scaled_c 0.1, x = d/L.
double specKernel(const std::string& name, double d, double L, double D) {
  const double w = std::pow(10000.0, -6.0 / D), w2 = std::pow(10000.0, -10.0 / D), x = d / L;
  if (name == "mixed_raw") return x * std::cos(w * d);
  if (name == "mixed_bounded") return (d / (1 + d / L)) / L * std::cos(w * d);
  if (name == "damped_mixed")
    return std::exp(-1e-4 * d) * (std::cos(w * d) + 0.75 * x * std::sin(w * d));
  if (name == "rhythm_envelope")
    return (0.25 + 0.85 * x) * (0.65 * std::cos(w * d) + 0.35 * std::sin(w2 * d));
  if (name == "high_jet_r2") return x * x * std::cos(w * d);
  if (name == "scaled_high_jet_r3") return x * x * x * std::exp(-0.1 * x) * std::cos(w * d);
  ADD_FAILURE() << name;
  return 0;
}

// Labels recomputed from the bits: score = sum_d x_{T-1-d} K(d) / ||K||_train.
void checkBitsQueryLabels(const Batch& batch, const std::vector<double>& weight,
                          long long* agreeing = nullptr) {
  const long long B = batch.tokens.size(0), T = batch.tokens.size(1);
  auto tok = batch.tokens.accessor<int64_t, 2>();
  auto tg = batch.targets.accessor<int64_t, 2>();
  for (long long b = 0; b < B; ++b) {
    EXPECT_EQ(tok[b][T - 1], 2);  // QUERY
    double score = 0, scale = 0;
    for (long long d = 1; d <= T - 1; ++d) {
      const int64_t bit = tok[b][T - 1 - d];
      ASSERT_TRUE(bit == 0 || bit == 1);
      score += (2.0 * bit - 1.0) * weight[d];
      scale += std::abs(weight[d]);
    }
    if (agreeing) {
      *agreeing += tg[b][T - 1] == (score > 0 ? 1 : 0);
      continue;
    }
    if (std::abs(score) < 1e-9 * scale) continue;  // near ties: see ExactTiesAreLabelledZero
    EXPECT_EQ(tg[b][T - 1], score > 0 ? 1 : 0) << "b=" << b << " score=" << score;
  }
}

TEST(TaskKernelLm, LabelsMatchSpecScore) {
  const long long L = 32, D = 16, B = 48;
  for (const std::string name : {"mixed_raw", "mixed_bounded", "damped_mixed", "rhythm_envelope",
                                 "high_jet_r2", "scaled_high_jet_r3"}) {
    TaskConfig c = config("kernel-lm");
    c.kernel = name;
    c.trainLength = L;
    c.headDim = D;
    auto task = makeTask(c);
    EXPECT_EQ(task->vocabSize(), 3);
    double norm = 0;
    for (long long d = 1; d < L; ++d) norm += std::pow(specKernel(name, d, L, D), 2);
    norm = std::sqrt(norm);
    for (long long T : {2LL, L, 3 * L}) {
      std::vector<double> w(T);
      for (long long d = 1; d < T; ++d) w[d] = specKernel(name, d, L, D) / norm;
      const Batch batch = task->sample(B, T, 11);
      expectLastPositionTask(batch, B, T);
      checkBitsQueryLabels(batch, w);
    }
  }
}

TEST(TaskKernelLm, MixedRawLabelsBalanced) {
  TaskConfig c = config("kernel-lm");
  c.trainLength = 64;
  const Batch batch = makeTask(c)->sample(512, 64, 3);
  const double ones = batch.targets.select(1, 63).sum().item<int64_t>() / 512.0;
  EXPECT_GT(ones, 0.2);
  EXPECT_LT(ones, 0.8);
}

TEST(TaskKernelLm, StochasticLabelsFollowTheScore) {
  // sigmoid(3 s) with s ~ N(0, 1) at the training length: the draw agrees with 1[s > 0] about
  // 80% of the time; deterministic labels would agree 100%, coin flips 50%.
  TaskConfig c = config("kernel-lm", {{"stochastic", 1}});
  c.trainLength = 64;
  const Batch batch = makeTask(c)->sample(1024, 64, 5);
  std::vector<double> w(64);
  double norm = 0;
  for (long long d = 1; d < 64; ++d) norm += std::pow(specKernel("mixed_raw", d, 64, 16), 2);
  for (long long d = 1; d < 64; ++d) w[d] = specKernel("mixed_raw", d, 64, 16) / std::sqrt(norm);
  long long agree = 0;
  checkBitsQueryLabels(batch, w, &agree);
  EXPECT_GT(agree, 1024 * 0.65);
  EXPECT_LT(agree, 1024 * 0.95);
  expectSameBatch(batch, makeTask(c)->sample(1024, 64, 5));
}

TEST(TaskKernelLm, OptionsAndLimits) {
  TaskConfig c = config("kernel-lm", {{"omega", 0.3}});
  c.trainLength = 16;
  auto task = makeTask(c);
  std::vector<double> w(40);
  double norm = 0;
  for (long long d = 1; d < 16; ++d) norm += std::pow(d / 16.0 * std::cos(0.3 * d), 2);
  for (long long d = 1; d < 40; ++d) w[d] = d / 16.0 * std::cos(0.3 * d) / std::sqrt(norm);
  checkBitsQueryLabels(task->sample(32, 40, 1), w);
  EXPECT_THROW(task->sample(4, 1, 0), InvalidArgument);
  EXPECT_THROW(task->sample(4, task->maxLength() + 1, 0), InvalidArgument);
  c.kernel = "no_such_kernel";
  EXPECT_THROW(makeTask(c), InvalidArgument);
  EXPECT_THROW(makeTask(config("kernel-lm", {{"stochastic", 2}})), InvalidArgument);
  EXPECT_THROW(makeTask(config("kernel-lm", {{"gamma", -1}})), InvalidArgument);
  TaskConfig shortTrain = config("kernel-lm");
  shortTrain.trainLength = 1;
  EXPECT_THROW(makeTask(shortTrain), InvalidArgument);
}

// ---- sector teachers ----------------------------------------------------------------------------

// K(d) written here from the reference's formulas (Poincare_Rope experiments/synthetic_query_lm.py
// teacher_kernel_by_position; the light-cone chart of pjrope/torch_backend.py), and PosLab's own
// poslab- variants from sector_teacher.h's table.
double referenceTeacher(const std::string& name, double d, double L, double w) {
  const double x = d / L, c = std::cos(w * d);
  const double eta = std::log(x + std::sqrt(x * x + 1));  // asinh(d / L)
  const double beta = x / std::sqrt(x * x + 1);           // d / sqrt(d^2 + L^2)
  const double core = std::cos(w * L * eta) * (1 + 0.4 * beta + 0.2 * std::pow(beta, 2));
  if (name == "phase") return c;
  if (name == "first_jet") return x * c;
  if (name == "second_jet") return std::pow(x, 2) * std::exp(-x / 10) * c;
  if (name == "third_jet") return std::pow(x, 3) * std::exp(-x / 10) * c;
  if (name == "affine") return -0.4 * x;
  if (name == "recency_weak_jet") return -0.4 * x + 0.15 * std::pow(x, 2) * c;
  if (name == "lc_core") return core;
  if (name == "lc_affine") return core - 0.25 * eta;
  if (name == "poslab-jet2") return std::pow(x, 2) / 2 * c;
  if (name == "poslab-jet3") return std::pow(x, 3) / 6 * c;
  if (name == "poslab-affine") return -x;
  if (name == "poslab-recency") return -x + 0.25 * x * c;
  if (name == "poslab-lc") return std::cos(w * L * eta);
  if (name == "poslab-lc-affine") return 0.5 * std::cos(w * L * eta) - 0.5 * eta;
  ADD_FAILURE() << name;
  return 0;
}

// Teacher 1: c_d = softmax(4 K) over the T-1 bit lags; teacher 0: K / ||K|| with the norm over
// the same lags at this length; x = d/L and omega from the TRAINING length L at every T.
TEST(TaskSectorTeacher, LabelsMatchReferenceTeachers) {
  const long long L = 32, B = 48;
  EXPECT_EQ(sectorTeacherNames().size(), 14u);
  for (const auto& name : sectorTeacherNames()) {
    const bool poslab = name.rfind("poslab-", 0) == 0;
    const double w = 2 * M_PI * (poslab ? 4 : 17) / L;
    for (int teacher : {0, 1}) {
      TaskConfig c = config("sector-teacher", {{"teacher", teacher}});
      c.kernel = name;
      c.trainLength = L;
      auto task = makeTask(c);
      EXPECT_EQ(task->vocabSize(), 3);
      for (long long T : {L, 3 * L}) {
        std::vector<double> weight(T);
        double z = 0, norm = 0;
        for (long long d = 1; d < T; ++d) {
          z += std::exp(4 * referenceTeacher(name, d, L, w));
          norm += std::pow(referenceTeacher(name, d, L, w), 2);
        }
        for (long long d = 1; d < T; ++d)
          weight[d] = teacher == 0 ? referenceTeacher(name, d, L, w) / std::sqrt(norm)
                                   : std::exp(4 * referenceTeacher(name, d, L, w)) / z;
        const std::vector<double> k = task->targetKernel(T), got = task->labelWeights(T);
        ASSERT_EQ(k.size(), static_cast<size_t>(T));
        for (long long d = 1; d < T; ++d) {
          EXPECT_NEAR(k[d], referenceTeacher(name, d, L, w), 1e-12) << name << " d=" << d;
          EXPECT_NEAR(got[d], weight[d], 1e-12) << name << " d=" << d;
        }
        const Batch batch = task->sample(B, T, 13);
        expectLastPositionTask(batch, B, T);
        checkBitsQueryLabels(batch, weight);
      }
    }
  }
}

// The signed affine teacher at T = 4 scores -(0.4 / L)(3 x_0 + 2 x_1 + x_2) / ||K||, exactly 0
// for x = (+, -, -) and (-, +, +); rounding must not decide those labels.
TEST(TaskSectorTeacher, ExactTiesAreLabelledZero) {
  TaskConfig c = config("sector-teacher", {{"teacher", 0}});
  c.kernel = "affine";
  c.trainLength = 7;
  const Batch batch = makeTask(c)->sample(256, 4, 9);
  auto tok = batch.tokens.accessor<int64_t, 2>();
  auto tg = batch.targets.accessor<int64_t, 2>();
  int ties = 0;
  for (long long b = 0; b < 256; ++b) {
    const int s = 3 * (2 * tok[b][0] - 1) + 2 * (2 * tok[b][1] - 1) + (2 * tok[b][2] - 1);
    EXPECT_EQ(tg[b][3], s < 0 ? 1 : 0) << "b=" << b;
    ties += s == 0;
  }
  EXPECT_GT(ties, 20);
}

TEST(TaskSectorTeacher, SectorsAndErrors) {
  for (const char* fj : {"phase", "first_jet", "second_jet", "third_jet", "poslab-jet2"})
    EXPECT_EQ(sectorOfTeacher(fj), "FJ") << fj;
  EXPECT_EQ(sectorOfTeacher("affine"), "affine");
  EXPECT_EQ(sectorOfTeacher("recency_weak_jet"), "affine");
  EXPECT_EQ(sectorOfTeacher("poslab-recency"), "affine");
  EXPECT_EQ(sectorOfTeacher("lc_core"), "LC");
  EXPECT_EQ(sectorOfTeacher("lc_affine"), "LC+affine");
  EXPECT_EQ(sectorOfTeacher("poslab-lc-affine"), "LC+affine");
  for (const char* gone : {"mixed_raw", "jet1", "recency", "lc", "lc-affine"})
    EXPECT_THROW(sectorOfTeacher(gone), InvalidArgument) << gone;
  TaskConfig c = config("sector-teacher");  // default kernel "mixed_raw" is no teacher
  EXPECT_THROW(makeTask(c), InvalidArgument);
  c.kernel = "lc_core";
  TaskConfig bad = c;
  bad.options = {{"teacher", 2}};
  EXPECT_THROW(makeTask(bad), InvalidArgument);
  bad.options = {{"attention_lambda", 0}};
  EXPECT_THROW(makeTask(bad), InvalidArgument);
  auto task = makeTask(c);
  EXPECT_THROW(task->sample(1, 1, 0), InvalidArgument);
}

// ---- key-value retrieval -----------------------------------------------------------------------

// The reference's layout (jordan_rope data.py): PAD 0, BOS 1, QUERY 2, NOISE 3, keys from 4,
// values after the keys; noise uniform over the four special tokens.
TEST(TaskKvRetrieval, TargetIsValueAfterQueriedKey) {
  const long long K = 7, V = 6, P = 3, B = 64;
  auto task = makeTask(config("kv-retrieval", {{"pairs", P}, {"keys", K}, {"values", V}}));
  EXPECT_EQ(task->vocabSize(), 4 + K + V);
  EXPECT_EQ(task->minLength(), 3 * P + 3);
  const auto isKey = [&](int64_t t) { return t >= 4 && t < 4 + K; };
  const auto isValue = [&](int64_t t) { return t >= 4 + K && t < 4 + K + V; };
  std::set<long long> distances;
  std::vector<long long> noiseCount(4, 0);
  for (long long T : {task->minLength(), 12LL, 50LL}) {
    const Batch batch = task->sample(B, T, 17);
    expectLastPositionTask(batch, B, T);
    ASSERT_TRUE(batch.info.defined());
    ASSERT_EQ(batch.info.sizes(), (at::IntArrayRef{B}));
    auto tok = batch.tokens.accessor<int64_t, 2>();
    auto tg = batch.targets.accessor<int64_t, 2>();
    auto info = batch.info.accessor<int64_t, 1>();
    for (long long b = 0; b < B; ++b) {
      EXPECT_EQ(tok[b][0], 1);      // BOS
      EXPECT_EQ(tok[b][T - 2], 2);  // QUERY
      ASSERT_TRUE(isKey(tok[b][T - 1]));
      EXPECT_LT(tok[b][T - 3], 4) << "T-3 is always noise (pair starts stop at T-5)";
      std::set<int64_t> keys;
      long long found = -1;
      for (long long i = 1; i < T - 2; ++i) {
        const int64_t t = tok[b][i];
        ASSERT_TRUE(t >= 0 && t < 4 + K + V) << t;
        if (t < 4) ++noiseCount[t];
        if (isValue(t)) EXPECT_TRUE(isKey(tok[b][i - 1])) << "a value follows its key";
        if (!isKey(t)) continue;
        ASSERT_LE(i, T - 5) << "pair starts lie in [1, T-5]";
        EXPECT_TRUE(isValue(tok[b][i + 1]));
        EXPECT_TRUE(keys.insert(t).second) << "keys are distinct";
        if (t == tok[b][T - 1]) found = i;
      }
      EXPECT_EQ(static_cast<long long>(keys.size()), P);
      ASSERT_GE(found, 1);
      EXPECT_EQ(tg[b][T - 1], tok[b][found + 1]);
      EXPECT_EQ(info[b], T - 1 - found);
      distances.insert(info[b]);
    }
  }
  EXPECT_GT(distances.size(), 20u) << "pairs should land at many distances";
  for (int t = 0; t < 4; ++t) EXPECT_GT(noiseCount[t], 200) << "noise token " << t;
}

// The reference's evaluation: distance_points 64 .. 8192 below T-2; the queried key at
// max(1, min(T-5, T-1-distance)).
TEST(TaskKvRetrieval, AccuracyDistancesAndFixedDistance) {
  auto task = makeTask(config("kv-retrieval", {{"pairs", 4}, {"keys", 16}, {"values", 16}}));
  EXPECT_TRUE(task->accuracyDistances(64).empty());
  EXPECT_EQ(task->accuracyDistances(66), (std::vector<long long>{}));
  EXPECT_EQ(task->accuracyDistances(67), (std::vector<long long>{64}));
  EXPECT_EQ(task->accuracyDistances(1024), (std::vector<long long>{64, 128, 256, 512}));
  EXPECT_EQ(task->accuracyDistances(10000),
            (std::vector<long long>{64, 128, 256, 512, 1024, 2048, 4096, 8192}));
  for (long long dist : {64LL, 128LL}) {
    const Batch b = task->sampleAtDistance(16, 200, dist, 3);
    auto tok = b.tokens.accessor<int64_t, 2>();
    auto tg = b.targets.accessor<int64_t, 2>();
    for (long long i = 0; i < 16; ++i) {
      EXPECT_EQ(b.info[i].item<int64_t>(), dist);
      const long long s = 200 - 1 - dist;  // the key's place
      EXPECT_EQ(tok[i][s], tok[i][199]);
      EXPECT_EQ(tg[i][199], tok[i][s + 1]);
    }
  }
  // Clamped like the reference: a distance past the start sits at s = 1 (distance T-2).
  EXPECT_EQ(task->sampleAtDistance(2, 20, 100, 0).info[0].item<int64_t>(), 18);
  EXPECT_THROW(task->sampleAtDistance(2, 20, 0, 0), InvalidArgument);
  EXPECT_THROW(makeTask(config("kernel-lm"))->sampleAtDistance(2, 20, 5, 0), InvalidArgument);
}

TEST(TaskKvRetrieval, Limits) {
  // The reference config's retrieval block: 32 pairs, 128 keys, 128 values.
  auto task = makeTask(config("kv-retrieval"));
  EXPECT_EQ(task->vocabSize(), 4 + 128 + 128);
  EXPECT_THROW(task->sample(2, 98, 0), InvalidArgument);  // < 3*32 + 3
  EXPECT_NO_THROW(task->sample(2, 99, 0));
  auto small = makeTask(config("kv-retrieval", {{"pairs", 4}, {"keys", 16}, {"values", 16}}));
  EXPECT_EQ(small->vocabSize(), 4 + 16 + 16);
  EXPECT_THROW(small->sample(2, 14, 0), InvalidArgument);  // < 3*4 + 3
  EXPECT_NO_THROW(small->sample(2, 15, 0));
  EXPECT_EQ(makeTask(config("kv-retrieval", {{"pairs", 1}}))->minLength(), 8);  // the reference's
  EXPECT_THROW(makeTask(config("kv-retrieval", {{"pairs", 0}})), InvalidArgument);
  EXPECT_THROW(makeTask(config("kv-retrieval", {{"pairs", 5}, {"keys", 4}})), InvalidArgument);
  EXPECT_THROW(makeTask(config("kv-retrieval", {{"values", 1}})), InvalidArgument);
  EXPECT_THROW(makeTask(config("kv-retrieval", {{"noise_tokens", 4}})), InvalidArgument);
}

// ---- byte LM ------------------------------------------------------------------------------------

class TaskByteLm : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& bytes) {
    return scratch_.write(name, bytes);
  }
  testing::ScratchFolder scratch_{"test_tasks"};
  const std::filesystem::path& dir_ = scratch_.path();
};

TEST_F(TaskByteLm, WindowsAreShiftedFileBytes) {
  std::string text;
  for (int i = 0; i < 100; ++i)
    text += "line " + std::to_string(i) + ": na\xC3\xAFve caf\xC3\xA9 \xE2\x82\xAC\n";
  TaskConfig c = config("byte-lm");
  c.textFile = write("text.txt", text);
  const size_t split = static_cast<size_t>(text.size() * 0.9);
  for (int splitOption : {0, 1}) {
    c.options["split"] = splitOption;
    auto task = makeTask(c);
    EXPECT_EQ(task->vocabSize(), 256);
    EXPECT_FALSE(task->hasAccuracy());
    const std::string part = splitOption == 0 ? text.substr(0, split) : text.substr(split);
    EXPECT_EQ(task->maxLength(), static_cast<long long>(part.size()) - 1);
    for (long long T : {1LL, 16LL, task->maxLength()}) {
      const long long B = 8;
      const Batch batch = task->sample(B, T, 23);
      ASSERT_EQ(batch.tokens.sizes(), (at::IntArrayRef{B, T}));
      EXPECT_FALSE(batch.answer.any().item<bool>());
      auto tok = batch.tokens.accessor<int64_t, 2>();
      auto tg = batch.targets.accessor<int64_t, 2>();
      for (long long b = 0; b < B; ++b) {
        std::string window(T + 1, '\0');
        for (long long t = 0; t < T; ++t) {
          ASSERT_GE(tok[b][t], 0);
          ASSERT_LT(tok[b][t], 256);
          if (t + 1 < T) EXPECT_EQ(tg[b][t], tok[b][t + 1]);
          window[t] = static_cast<char>(tok[b][t]);
        }
        window[T] = static_cast<char>(tg[b][T - 1]);
        EXPECT_NE(part.find(window), std::string::npos) << "window not in the split";
      }
    }
  }
}

TEST_F(TaskByteLm, BadFilesAndLengths) {
  TaskConfig c = config("byte-lm");
  c.textFile = write("bad.txt", "ok so far \xC3\x28 then broken");
  try {
    makeTask(c);
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("bad.txt"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("UTF-8"), std::string::npos) << e.what();
  }
  c.textFile = write("overlong.txt", "\xC0\xAF");
  EXPECT_THROW(makeTask(c), InvalidArgument);
  c.textFile = write("surrogate.txt", "abc \xED\xA0\x80 def");
  EXPECT_THROW(makeTask(c), InvalidArgument);
  c.textFile = write("empty.txt", "");
  EXPECT_THROW(makeTask(c), InvalidArgument);
  c.textFile = (dir_ / "missing.txt").string();
  EXPECT_THROW(makeTask(c), InvalidArgument);
  c.textFile = write("short.txt", std::string(100, 'a'));
  auto task = makeTask(c);  // train split: 90 bytes, lengths up to 89
  EXPECT_EQ(task->maxLength(), 89);
  try {
    task->sample(1, 90, 0);
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("short.txt"), std::string::npos) << e.what();
  }
  EXPECT_THROW(task->sample(1, 0, 0), InvalidArgument);
  EXPECT_THROW(makeTask(config("byte-lm", {{"split", 2}})), InvalidArgument);
}

TEST_F(TaskByteLm, DefaultCorpus) {
  EXPECT_NE(defaultCorpusDescription().find("fortunes-min and fortunes"), std::string::npos);
  const std::vector<std::string> files = defaultCorpusFiles();
  EXPECT_EQ(files.size(), 43u);  // fortunes-min's 3 text files and fortunes' 40 (Debian 12)
  EXPECT_TRUE(std::is_sorted(files.begin(), files.end()));
  for (const char* name : {"fortunes", "literature", "riddles", "computers", "zippy"})
    EXPECT_NE(std::find(files.begin(), files.end(), name), files.end()) << name;
  if (!std::filesystem::exists(defaultCorpusDirectory()))
    GTEST_SKIP() << "fortunes-min and fortunes not installed";
  // The corpus is those files and nothing else in the folder: its size is theirs (about 2.7 MB in
  // Debian 12), whatever other fortune packages the machine has.
  std::uintmax_t total = 0;
  for (const auto& name : defaultCorpusFiles())
    total += std::filesystem::file_size(std::filesystem::path(defaultCorpusDirectory()) / name);
  EXPECT_GT(total, 2000000u);
  auto task = makeTask(config("byte-lm"));
  const auto trainBytes = static_cast<long long>(static_cast<double>(total) * 0.9);
  EXPECT_EQ(task->maxLength(), trainBytes - 1);  // windows of T + 1 bytes in the first 90%
  const Batch batch = task->sample(4, 256, 1);
  EXPECT_TRUE(at::equal(batch.tokens.slice(1, 1), batch.targets.slice(1, 0, 255)));
  auto eval = makeTask(config("byte-lm", {{"split", 1}}));
  EXPECT_EQ(eval->maxLength(), static_cast<long long>(total) - trainBytes - 1);
}

// ---- determinism, all tasks ---------------------------------------------------------------------

TEST(TaskDeterminism, SameSeedSameBatchDifferentSeedDifferent) {
  const std::string file =
      (std::filesystem::temp_directory_path() / ("poslab_det_" + std::to_string(::getpid())))
          .string();
  {
    std::string text;
    for (int i = 0; i < 300; ++i) text += "determinism " + std::to_string(i * 7919 % 1000) + "\n";
    std::ofstream(file, std::ios::binary) << text;
  }
  for (const auto& id : taskIds()) {
    TaskConfig c = config(id);
    if (id == "sector-teacher") c.kernel = "first_jet";
    if (id == "byte-lm") c.textFile = file;
    auto task = makeTask(c);
    const long long T = std::max(40LL, task->minLength());  // kv-retrieval's 32 pairs need 99
    const Batch a = task->sample(8, T, 42), b = makeTask(c)->sample(8, T, 42);
    expectSameBatch(a, b);
    const Batch other = task->sample(8, T, 43);
    EXPECT_FALSE(at::equal(a.tokens, other.tokens)) << id;
    // Example b does not depend on the batch size.
    EXPECT_TRUE(at::equal(task->sample(3, T, 42).tokens, a.tokens.slice(0, 0, 3))) << id;
  }
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace poslab
