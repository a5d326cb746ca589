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

}  // namespace
}  // namespace poslab
