// The synthetic tasks against numbers computed outside PosLab from the papers' reference code:
// the formulas of Poincare_Rope experiments/synthetic_query_lm.py (teacher_kernel_by_position,
// with pjrope/torch_backend.py's light-cone chart) and jordan_rope scripts/run_kernel_lm.py
// (kernel_values), evaluated in float64 with python3's math module; plus small layouts worked by
// hand.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "tasks/task.h"

namespace poslab {
namespace {

std::unique_ptr<Task> task(const std::string& id, const std::string& kernel, long long trainLength,
                           std::map<std::string, double> options = {}) {
  TaskConfig c;
  c.id = id;
  c.kernel = kernel;
  c.trainLength = trainLength;
  c.options = std::move(options);
  return makeTask(c);
}

// K(d) at d = 1, 7, 50, 150 for L = 96 and omega = 2 pi 17 / 96 (the reference defaults), from
// python3: x = d/L; c = math.cos(w*d); eta = math.asinh(d/L); phi = L*eta;
// beta = d/math.sqrt(d*d + L*L); then each target's line of teacher_kernel_by_position.
TEST(ReferenceSectorTeachers, KernelValuesFromPython) {
  const std::map<std::string, std::vector<double>> expected = {
      {"phase",
       {0.44228869021900125, 0.065403129230142854, 0.60876142900872321, -0.92387953251128296}},
      {"first_jet",
       {0.0046071738564479291, 0.00476897817303125, 0.31706324427537669, -1.4435617695488796}},
      {"second_jet",
       {4.7941429330190045e-05, 0.00034521162416893637, 0.15675635851200018, -1.9292872097863569}},
      {"third_jet",
       {4.9938988885614627e-07, 2.517168092898494e-05, 0.081643936725000088, -3.014511265291183}},
      {"affine", {-0.0041666666666666666, -0.029166666666666671, -0.20833333333333337, -0.625}},
      {"recency_weak_jet",
       {-0.0041594679575159667, -0.029114505967899142, -0.18356276737431956, -0.96333478973801867}},
      {"lc_core",
       {0.44415917820175804, 0.074450850502518387, -1.2270724975303915, 1.1510041060325145}},
      {"lc_affine",
       {0.44155505862781991, 0.056237798903582714, -1.3520144139480901, 0.84376926655375462}},
  };
  const long long lags[] = {1, 7, 50, 150};
  for (const auto& [name, values] : expected) {
    // Evaluated at length 151 (lags up to 150), past the training length 96: x and omega stay
    // those of L = 96.
    const std::vector<double> k = task("sector-teacher", name, 96)->targetKernel(151);
    for (int i = 0; i < 4; ++i)
      EXPECT_NEAR(k[lags[i]], values[i], 1e-13 * (1 + std::abs(values[i])))
          << name << " d=" << lags[i];
  }
}

// T = 4 at L = 96: the bits sit at positions 0, 1, 2 with lags 3, 2, 1. Weights from python3:
// recency_weak_jet, attention: softmax(4 K(d)) over d = 1, 2, 3; first_jet, signed: K / ||K||.
TEST(ReferenceSectorTeachers, SmallLayoutAndLabels) {
  const double attention[4] = {0, 0.33899226363120549, 0.33332676757590562, 0.32768096879288888};
  const double sign[4] = {0, 0.13757558499222708, -0.37871513140030477, -0.91523101327615453};
  auto att = task("sector-teacher", "recency_weak_jet", 96);  // teacher 1 is the default
  auto sgn = task("sector-teacher", "first_jet", 96, {{"teacher", 0}});
  const std::vector<double> wa = att->labelWeights(4), ws = sgn->labelWeights(4);
  for (int d = 1; d < 4; ++d) {
    EXPECT_NEAR(wa[d], attention[d], 1e-15) << d;
    EXPECT_NEAR(ws[d], sign[d], 1e-15) << d;
  }
  for (const auto* pair : {&att, &sgn}) {
    const double* w = pair == &att ? attention : sign;
    const Batch b = (*pair)->sample(64, 4, 5);
    auto tok = b.tokens.accessor<int64_t, 2>();
    auto tg = b.targets.accessor<int64_t, 2>();
    auto an = b.answer.accessor<bool, 2>();
    for (int i = 0; i < 64; ++i) {
      EXPECT_EQ(tok[i][3], 2);  // QUERY last
      const double score =
          (2 * tok[i][0] - 1) * w[3] + (2 * tok[i][1] - 1) * w[2] + (2 * tok[i][2] - 1) * w[1];
      EXPECT_EQ(tg[i][3], score > 0 ? 1 : 0) << i;
      for (int t = 0; t < 3; ++t) {
        EXPECT_TRUE(tok[i][t] == 0 || tok[i][t] == 1);
        EXPECT_EQ(tg[i][t], -1);
        EXPECT_FALSE(an[i][t]);
      }
      EXPECT_TRUE(an[i][3]);
    }
  }
}

// K(d) and ||K|| over the training lags 1..1023 for the reference's configs/kernel_lm.yaml
// (seq_len_train 1024, d_head = 128 / 4 = 32, theta 10000, target_freq_index 3,
// second_freq_index 5, gamma 1e-4, scaled_c 0.1), at d = 1, 100, 1000, 3000, from python3
// evaluating run_kernel_lm.py's kernel_values formulas in float64 (math.cos, math.exp, ...).
TEST(ReferenceKernelLm, KernelValuesFromPython) {
  struct Row {
    const char* name;
    double norm;
    double k[4];
  };
  const Row rows[] = {
      {"mixed_raw",
       13.033025706865535,
       {0.00096116233834970177, 0.047164281146799311, -0.31455929129943122, 2.4393921152601008}},
      {"mixed_bounded",
       7.6167315333669672,
       {0.00096022461899521422, 0.042968170724486207, -0.15914462168508772, 0.6207598225711588}},
      {"damped_mixed",
       23.297296452672491,
       {0.98426136311903512, 0.41466095162277866, 0.33594536028537808, -0.28463175395337487}},
      {"rhythm_envelope",
       11.951338194476227,
       {0.16540267791847782, 0.03310017361178956, -0.34308871424050963, 0.70652006562686909}},
      {"high_jet_r2",
       10.07972166472617,
       {9.3863509604463063e-07, 0.0046058868307421201, -0.30718680790960079, 7.1466565876760759}},
      {"scaled_high_jet_r3",
       7.7953002069662309,
       {9.1654632513344509e-10, 0.0004454224980247741, -0.27207650108256304, 15.620304668981792}},
  };
  const long long lags[] = {1, 100, 1000, 3000};
  for (const Row& r : rows) {
    TaskConfig c;
    c.id = "kernel-lm";
    c.kernel = r.name;
    c.trainLength = 1024;
    c.headDim = 32;
    const auto t = makeTask(c);
    const std::vector<double> k = t->targetKernel(3001), w = t->labelWeights(3001);
    for (int i = 0; i < 4; ++i) {
      EXPECT_NEAR(k[lags[i]], r.k[i], 1e-12 * (1 + std::abs(r.k[i]))) << r.name << " " << lags[i];
      EXPECT_NEAR(w[lags[i]], r.k[i] / r.norm, 1e-12) << r.name << " " << lags[i];
    }
  }
}

}  // namespace
}  // namespace poslab
