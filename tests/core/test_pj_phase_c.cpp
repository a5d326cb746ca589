// The PJ reference's Phase C switches (issue 30 section 1; docs/MATH.md 2.3.1): sector sets, the
// "auto" gate and order initialisation, freeze_qk, multi-length training, the median threshold and
// the variant keys that sweep them. Expected values are computed here from the reference's
// definitions (synthetic_query_lm.py: make_pj_bias, init_gate_logits, init_order_logits,
// preferred_sector, preferred_order, choose_training_length, sample_batch), not by the code.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "encodings/pj_bias.h"
#include "encodings/pj_sector_sets.h"
#include "encodings/registry.h"
#include "io/json_fields.h"
#include "model/transformer.h"
#include "tasks/sector_teacher.h"
#include "tasks/task.h"
#include "train/experiment_plan.h"
#include "train/experiment_spec.h"
#include "train/pj_sector_init.h"
#include "train/trainable_check.h"
#include "train/trainer.h"
#include "util/error.h"

namespace poslab {
namespace {

TrainConfig teacherRun(const std::string& teacher, const std::string& sectors = "",
                       const std::string& gateInit = "uniform",
                       const std::string& orderInit = "uniform") {
  TrainConfig c;
  c.model.family = "pj-bias";
  c.model.dModel = 16;
  c.model.heads = 2;
  c.model.layers = 1;
  c.model.pjSectors = sectors;
  c.model.pjGateInit = gateInit;
  c.model.pjOrderInit = orderInit;
  c.task.id = "sector-teacher";
  c.task.kernel = teacher;
  c.task.trainLength = 16;
  c.optim.batch = 4;
  c.run.steps = 2;
  c.run.evalLengths = {16};
  c.run.evalSequences = 4;
  return c;
}

std::string errorOfPhaseC(const std::function<void()>& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(PjPhaseC, SectorSetsAreTheReferencesFlags) {
  // make_pj_bias: use_fj, use_affine, use_lc per --sectors.
  struct Row {
    const char* name;
    bool fj, affine, lc, orderZero;
  };
  for (const Row& r :
       {Row{"affine", false, true, false, false}, Row{"fj", true, false, false, false},
        Row{"fj_affine", true, true, false, false}, Row{"lc_affine", false, true, true, false},
        Row{"full", true, true, true, false}, Row{"grape_m_rope", true, false, false, true},
        Row{"grape_a_alibi", false, true, false, false},
        Row{"grape_ma_rope_alibi", true, true, false, true}}) {
    const PjSectorSet s = pjSectorSet(r.name);
    EXPECT_EQ(s.fj, r.fj) << r.name;
    EXPECT_EQ(s.affine, r.affine) << r.name;
    EXPECT_EQ(s.lc, r.lc) << r.name;
    EXPECT_EQ(s.orderZero, r.orderZero) << r.name;
  }
  EXPECT_THROW(pjSectorSet("none"), InvalidArgument);
  EXPECT_THROW(pjSectorSet("fj_lc"), InvalidArgument);
}

TEST(PjPhaseC, PreferredSectorAndOrderAreTheReferencesMaps) {
  const std::vector<std::tuple<std::string, std::string, std::string, long long>> rows = {
      // teacher, attention-teacher sector, signed-teacher sector, order
      {"phase", "fj", "fj", 0},          {"first_jet", "fj", "fj", 1},
      {"second_jet", "fj", "fj", 2},     {"third_jet", "fj", "fj", 3},
      {"affine", "affine", "affine", 0}, {"recency_weak_jet", "affine", "fj", 2},
      {"lc_core", "lc", "lc", 0},        {"lc_affine", "lc", "lc", 0}};
  for (const auto& [teacher, attention, sign, order] : rows) {
    EXPECT_EQ(preferredSectorOfTeacher(teacher, true), attention) << teacher;
    EXPECT_EQ(preferredSectorOfTeacher(teacher, false), sign) << teacher;
    EXPECT_EQ(preferredOrderOfTeacher(teacher), order) << teacher;
  }
  EXPECT_THROW(preferredSectorOfTeacher("mixed_raw", true), InvalidArgument);
}

TEST(PjPhaseC, GatesFollowTheSetAndTheAutoInit) {
  // Uniform over the set: the reference's zero logits.
  TrainConfig c = teacherRun("first_jet", "fj_affine");
  resolvePjSectorChoices(c);
  EXPECT_DOUBLE_EQ(c.model.familyParams.at("g_fj"), 0.5);
  EXPECT_DOUBLE_EQ(c.model.familyParams.at("g_aff"), 0.5);
  EXPECT_DOUBLE_EQ(c.model.familyParams.at("g_lc"), 0.0);
  EXPECT_EQ(c.model.familyParams.count("alpha_peak"), 0u);

  // full + auto on a signed first_jet teacher: logits (+2, -2, -2), softmax by hand.
  c = teacherRun("first_jet", "full", "auto", "auto");
  c.task.options["teacher"] = 0;
  resolvePjSectorChoices(c);
  const double big = std::exp(2.0), small = std::exp(-2.0), z = big + 2 * small;
  EXPECT_NEAR(c.model.familyParams.at("g_fj"), big / z, 1e-15);
  EXPECT_NEAR(c.model.familyParams.at("g_aff"), small / z, 1e-15);
  EXPECT_NEAR(c.model.familyParams.at("g_lc"), small / z, 1e-15);
  EXPECT_EQ(c.model.familyParams.at("alpha_peak"), 1);
  const auto once = c.model.familyParams;
  resolvePjSectorChoices(c);  // idempotent: a checkpoint's config resolves to itself
  EXPECT_EQ(c.model.familyParams, once);

  // lc_affine under auto: LC first (the reference's map), the FJ gate off.
  c = teacherRun("lc_affine", "lc_affine", "auto");
  resolvePjSectorChoices(c);
  EXPECT_NEAR(c.model.familyParams.at("g_lc"), big / (big + small), 1e-15);
  EXPECT_NEAR(c.model.familyParams.at("g_aff"), small / (big + small), 1e-15);
  EXPECT_EQ(c.model.familyParams.at("g_fj"), 0);

  // The preferred sector outside the set leaves the set's gates uniform (init_gate_logits returns).
  c = teacherRun("first_jet", "affine", "auto");
  resolvePjSectorChoices(c);
  EXPECT_EQ(c.model.familyParams.at("g_aff"), 1);
  EXPECT_EQ(c.model.familyParams.at("g_fj"), 0);

  // GRAPE-M: FJ at order 0 only.
  c = teacherRun("phase", "grape_m_rope");
  resolvePjSectorChoices(c);
  EXPECT_EQ(c.model.familyParams.at("order"), 0);
  EXPECT_EQ(c.model.familyParams.at("g_fj"), 1);

  // none: plain attention.
  c = teacherRun("phase", "none", "auto", "auto");
  c.model.familyParams["slope"] = 0.4;
  resolvePjSectorChoices(c);
  EXPECT_EQ(c.model.family, "nope");
  EXPECT_TRUE(c.model.familyParams.empty());
  EXPECT_NO_THROW(c.model.validate());

  // auto needs a teacher.
  c = teacherRun("phase", "full", "auto");
  c.task.id = "kernel-lm";
  c.task.kernel = "mixed_raw";
  EXPECT_NE(errorOfPhaseC([&] { resolvePjSectorChoices(c); }).find("model.pj_gate_init"),
            std::string::npos);
}

TEST(PjPhaseC, OrderLogitsStartAtTheReferencesValues) {
  EXPECT_EQ(pjInitialOrderLogits(3, -1), (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(pjInitialOrderLogits(3, 2), (std::vector<double>{-2, -2, 2, -2}));
  EXPECT_EQ(pjInitialOrderLogits(2, 3), (std::vector<double>{0, 0, 0}));  // order above R: skip
  const std::vector<double> w = pjInitialOrderWeights(3, 1);
  const double z = std::exp(2.0) + 3 * std::exp(-2.0);
  EXPECT_NEAR(w[1], std::exp(2.0) / z, 1e-15);
  EXPECT_NEAR(w[0], std::exp(-2.0) / z, 1e-15);

  // The trained model's order logits are those numbers.
  ModelConfig m = teacherRun("second_jet").model;
  m.vocab = 3;
  m.familyParams["alpha_peak"] = 2;
  TinyTransformer model(m, 16);
  int seen = 0;
  for (const auto& p : model->named_parameters()) {
    const std::string& name = p.key();
    if (name.find("alpha_fj_logits") == std::string::npos &&
        name.find("alpha_lc_logits") == std::string::npos)
      continue;
    ++seen;
    const at::Tensor expected =
        at::tensor(std::vector<float>{-2, -2, 2, -2}).unsqueeze(0).expand({2, 4});
    EXPECT_TRUE(at::equal(p.value().detach(), expected)) << name;
  }
  EXPECT_EQ(seen, 2);
}

TEST(PjPhaseC, FrozenQueryKeyStaysZeroAndTheValuesTrain) {
  ModelConfig m = teacherRun("phase").model;
  m.vocab = 3;
  m.freezeQk = true;
  m.init = "pytorch";
  torch::manual_seed(1);
  TinyTransformer model(m, 16);
  torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(1e-2).weight_decay(1e-4));
  const at::Tensor tokens = torch::randint(0, 3, {4, 16}, torch::kLong);
  auto& attn = model->blocks[0]->attn;
  const int64_t C = m.dModel;
  const at::Tensor v0 = attn->qkv->weight.narrow(0, 2 * C, C).detach().clone();
  for (int step = 0; step < 3; ++step) {
    opt.zero_grad();
    model->forward(tokens).pow(2).mean().backward();
    EXPECT_EQ(attn->qkv->weight.grad().narrow(0, 0, 2 * C).abs().max().item<double>(), 0.0);
    EXPECT_GT(attn->qkv->weight.grad().narrow(0, 2 * C, C).abs().max().item<double>(), 0.0);
    opt.step();
  }
  EXPECT_EQ(attn->qkv->weight.narrow(0, 0, 2 * C).abs().max().item<double>(), 0.0);
  EXPECT_EQ(attn->qkv->bias.narrow(0, 0, 2 * C).abs().max().item<double>(), 0.0);
  EXPECT_FALSE(at::equal(attn->qkv->weight.narrow(0, 2 * C, C), v0));
}

TEST(PjPhaseC, MultiLengthTrainingCyclesOrDrawsFromTheList) {
  TaskConfig task;
  task.trainLength = 96;
  task.trainLengths = {48, 96};
  // choose_training_length "cycle": step 1 (the reference counts from 1) takes the first length.
  for (long long step = 0; step < 6; ++step)
    EXPECT_EQ(trainingLengthAt(task, step, batchSeed(1, step, 1)), step % 2 == 0 ? 48 : 96);
  task.lengthSampling = "random";
  task.trainLengths = {32, 48, 96};
  std::set<long long> seen;
  for (long long step = 0; step < 200; ++step) {
    const uint64_t seed = batchSeed(1, step, 1);
    const long long len = trainingLengthAt(task, step, seed);
    EXPECT_EQ(len, trainingLengthAt(task, step + 7, seed));  // the seed draws it, not the step
    seen.insert(len);
  }
  EXPECT_EQ(seen, (std::set<long long>{32, 48, 96}));

  // A run trains with them; min_train_length beside them is refused, naming the field.
  TrainConfig c = teacherRun("affine", "affine");
  c.task.trainLengths = {8, 16};
  Trainer t(c);
  EXPECT_NO_THROW(t.step());
  c.task.minTrainLength = 8;
  EXPECT_NE(errorOfPhaseC([&] { c.validate(); }).find("task.train_lengths"), std::string::npos);
}

TEST(PjPhaseC, MedianThresholdBalancesEachBatch) {
  TaskConfig t;
  t.id = "sector-teacher";
  t.kernel = "first_jet";
  t.trainLength = 24;
  t.options = {{"teacher", 0}, {"median_threshold", 1}};
  const auto task = makeTask(t);
  const long long B = 9, T = 24;
  const Batch b = task->sample(B, T, 5);
  // The signed teacher by hand: K(d) / ||K|| over d = 1..T-1, K from the teacher's table.
  const double L = 24, omega = 2 * M_PI * 17 / L;
  std::vector<double> w(T, 0.0);
  double ss = 0;
  for (long long d = 1; d < T; ++d) {
    w[d] = (d / L) * std::cos(omega * d);
    ss += w[d] * w[d];
  }
  std::vector<double> scores;
  for (long long i = 0; i < B; ++i) {
    double s = 0;
    for (long long p = 0; p < T - 1; ++p)
      s += (2.0 * b.tokens[i][p].item<double>() - 1) * w[T - 1 - p] / std::sqrt(ss);
    scores.push_back(s);
  }
  std::vector<double> sorted = scores;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[(B - 1) / 2];  // torch.median: the lower middle value
  long long ones = 0;
  for (long long i = 0; i < B; ++i) {
    EXPECT_EQ(b.targets[i][T - 1].item<int64_t>(), scores[i] > median ? 1 : 0) << i;
    ones += b.targets[i][T - 1].item<int64_t>();
  }
  EXPECT_EQ(ones, 4);  // 9 distinct scores: the 4 above the 5th
  t.options["median_threshold"] = 2;
  EXPECT_THROW(makeTask(t), InvalidArgument);
}

TEST(PjPhaseC, VariantsSetTheSectorsAndTaskOptions) {
  nlohmann::json j = nlohmann::json::parse(R"({
    "families": ["pj-bias"],
    "variants": [{"sectors": "none"}, {"sectors": "fj", "options.attention_lambda": "8"}],
    "config": {"task": {"id": "sector-teacher", "kernel": "first_jet", "train_length": 16},
               "model": {"d_model": 16, "heads": 2, "layers": 1, "pj_gate_init": "auto"}}
  })");
  const ExperimentSpec s = readExperiment(j, JsonPath{"t.json", ""});
  const std::vector<PlannedRun> plan = planExperiment(s);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].config.model.pjSectors, "none");
  EXPECT_EQ(plan[1].config.model.pjSectors, "fj");
  EXPECT_EQ(plan[1].config.task.options.at("attention_lambda"), 8);
  EXPECT_EQ(plan[1].variant, "8,fj");

  auto bad = [&](const char* variant) {
    nlohmann::json k = j;
    k["variants"] = nlohmann::json::array({nlohmann::json::parse(variant)});
    return errorOfPhaseC([&] { readExperiment(k, JsonPath{"t.json", ""}); });
  };
  EXPECT_NE(bad(R"({"sectors": "fj_lc"})").find("variants[0].sectors"), std::string::npos);
  EXPECT_NE(bad(R"({"options.attention_lambda": "eight"})").find("variants[0].options."),
            std::string::npos);
  EXPECT_NE(bad(R"({"colour": "red"})").find("variants[0].colour"), std::string::npos);
  // The new config fields are read strictly.
  nlohmann::json k = j;
  k["config"]["model"]["pj_sectors"] = "fj_lc";
  EXPECT_NE(errorOfPhaseC([&] {
              readExperiment(k, JsonPath{"t.json", ""});
            }).find("config.model.pj_sectors"),
            std::string::npos);
  k = j;
  k["config"]["task"]["length_sampling"] = "zigzag";
  EXPECT_NE(errorOfPhaseC([&] {
              readExperiment(k, JsonPath{"t.json", ""});
            }).find("config.task.length_sampling"),
            std::string::npos);
}

// Issue 31: core/train names no family; the switches go to the parameters a family declares
// (FamilyInfo::sectorParams), and only such a family takes them.
TEST(PjPhaseC, OnlyAFamilyThatDeclaresSectorParamsTakesTheSwitches) {
  std::vector<std::string> takers;
  for (const FamilyInfo* f : allFamilies()) {
    if (!f->sectorParams) continue;
    takers.push_back(f->id);
    std::set<std::string> names;
    for (const ParamSpec& p : f->params) names.insert(p.name);
    const SectorParams& declared = *f->sectorParams;
    for (const std::string& gate : declared.gates) EXPECT_TRUE(names.count(gate)) << gate;
    EXPECT_TRUE(names.count(declared.order)) << f->id;
    EXPECT_TRUE(names.count(declared.orderPeak)) << f->id;
    // "none" gives a family that ignores the switches, so resolving twice changes nothing.
    EXPECT_FALSE(familyInfo(declared.noSectorFamily).sectorParams) << f->id;
  }
  EXPECT_EQ(takers, std::vector<std::string>{"pj-bias"});  // the reference's make_pj_bias

  TrainConfig c = teacherRun("first_jet", "none", "auto", "auto");
  c.model.family = "pj-rotary";  // PJ too, but not the bias regime: left as it is
  resolvePjSectorChoices(c);
  EXPECT_EQ(c.model.family, "pj-rotary");
  EXPECT_TRUE(c.model.familyParams.empty());
  EXPECT_EQ(c.model.pjSectors, "none");

  // checkTrainable asks the same declaration: "auto" without a teacher task is refused only
  // when a family that takes it is in the list.
  ExperimentSpec spec;
  spec.base = teacherRun("first_jet", "full", "auto");
  spec.base.task.id = "kernel-lm";
  spec.base.task.kernel = "mixed_raw";
  spec.families = {"rope", "pj-rotary"};
  EXPECT_EQ(errorOfPhaseC([&] { checkTrainable(spec, JsonPath{"t.json", ""}); }), "");
  spec.families = {"rope", "pj-bias"};
  EXPECT_NE(errorOfPhaseC([&] {
              checkTrainable(spec, JsonPath{"t.json", ""});
            }).find("pj_gate_init"),
            std::string::npos);
}

TEST(PjPhaseC, EverySectorSetTrains) {
  for (const char* sectors : {"none", "affine", "fj", "fj_affine", "lc_affine", "full",
                              "grape_m_rope", "grape_a_alibi", "grape_ma_rope_alibi"}) {
    TrainConfig c = teacherRun("first_jet", sectors, "auto", "auto");
    c.model.freezeQk = true;
    Trainer t(c);
    const Snapshot s = t.step();
    EXPECT_TRUE(std::isfinite(s.loss)) << sectors;
    EXPECT_EQ(t.config().model.family, std::string(sectors) == "none" ? "nope" : "pj-bias");
  }
}

}  // namespace
}  // namespace poslab
