// Every family: the fast paths (factorized and direct, float64 and float32) against the float64
// reference written from docs/MATH.md, on random q and k. Tolerances: 1e-9 (float64), 2e-4
// relative to the logit scale (float32, short positions).
#include <gtest/gtest.h>

#include "encodings/registry.h"
#include "test_support.h"

namespace poslab {
namespace {

using testing::allFamilyCases;
using testing::maxAbsDiff;
using testing::positions;
using testing::randomQK;
using testing::referenceLogits;

TEST(FormsAgree, EveryFamilyIsCovered) {
  EXPECT_EQ(allFamilyCases().size(), allFamilies().size());
  for (const auto* info : allFamilies()) {
    bool found = false;
    for (const auto& c : allFamilyCases()) found = found || c.id == info->id;
    EXPECT_TRUE(found) << info->id << " has no test case";
  }
}

class FamilyForms : public ::testing::TestWithParam<size_t> {};

TEST_P(FamilyForms, Float64FastPathsMatchReference) {
  const auto fc = allFamilyCases()[GetParam()];
  auto enc = makeEncoding(fc.id, fc.params);
  const long long D = enc->headDim();
  // Offset positions so that absolute-position effects would show.
  at::Tensor q = randomQK(2, fc.heads, 40, D, at::kDouble, 1);
  at::Tensor k = randomQK(2, fc.heads, 40, D, at::kDouble, 2);
  at::Tensor pos = positions(17, 40);
  at::Tensor ref = referenceLogits(*enc, q, k, pos, pos);
  at::Tensor direct = attentionLogits(*enc, q, k, pos, pos, Form::Direct, /*chunk=*/7);
  EXPECT_LT(maxAbsDiff(direct, ref), 1e-9) << fc.id << " direct";
  if (enc->hasFactorized()) {
    at::Tensor fact = attentionLogits(*enc, q, k, pos, pos, Form::Factorized, /*chunk=*/13);
    EXPECT_LT(maxAbsDiff(fact, ref), 1e-9) << fc.id << " factorized";
  }
}

TEST_P(FamilyForms, Float32FastPathsMatchReference) {
  const auto fc = allFamilyCases()[GetParam()];
  auto enc = makeEncoding(fc.id, fc.params);
  const long long D = enc->headDim();
  at::Tensor q = randomQK(1, fc.heads, 64, D, at::kFloat, 3);
  at::Tensor k = randomQK(1, fc.heads, 64, D, at::kFloat, 4);
  at::Tensor pos = positions(0, 64);
  at::Tensor ref = referenceLogits(*enc, q, k, pos, pos);
  const double scale =
      at::where(at::isfinite(ref), ref.abs(), at::zeros_like(ref)).max().item<double>();
  at::Tensor direct = attentionLogits(*enc, q, k, pos, pos, Form::Direct);
  EXPECT_EQ(direct.scalar_type(), at::kFloat);
  EXPECT_LT(maxAbsDiff(direct, ref), 2e-4 * (1 + scale)) << fc.id << " direct";
  if (enc->hasFactorized()) {
    at::Tensor fact = attentionLogits(*enc, q, k, pos, pos, Form::Factorized);
    EXPECT_LT(maxAbsDiff(fact, ref), 2e-4 * (1 + scale)) << fc.id << " factorized";
  }
}

// Factorized and direct agree for every group-law family up to T = 512 (float64).
TEST_P(FamilyForms, FactorizedEqualsDirectAtT512) {
  const auto fc = allFamilyCases()[GetParam()];
  auto enc = makeEncoding(fc.id, fc.params);
  if (!enc->hasFactorized()) GTEST_SKIP() << fc.id << " has no factorized form";
  at::Tensor q = randomQK(1, fc.heads, 512, enc->headDim(), at::kDouble, 5);
  at::Tensor k = randomQK(1, fc.heads, 512, enc->headDim(), at::kDouble, 6);
  at::Tensor pos = positions(0, 512);
  at::Tensor direct = attentionLogits(*enc, q, k, pos, pos, Form::Direct, 128);
  at::Tensor fact = attentionLogits(*enc, q, k, pos, pos, Form::Factorized, 128);
  const double scale =
      at::where(at::isfinite(direct), direct.abs(), at::zeros_like(direct)).max().item<double>();
  EXPECT_LT(maxAbsDiff(direct, fact), 1e-10 * (1 + scale)) << fc.id;
}

INSTANTIATE_TEST_SUITE_P(AllFamilies, FamilyForms,
                         ::testing::Range<size_t>(0, allFamilyCases().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           std::string name = allFamilyCases()[info.param].id;
                           for (auto& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

}  // namespace
}  // namespace poslab
