// The fixed kernel basis recovery (MATH 4.2.6) against answers known without it: targets that lie
// in a basis's span are fitted to round-off at every length, the alibi design's condition number
// is sqrt(N / (N - 1)) in closed form, and one fit recomputed here by the normal equations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analysis/fixed_kernel_recovery.h"
#include "util/error.h"

using namespace poslab;

namespace {
constexpr double kRecoveryPi = 3.14159265358979323846;

FixedRecoverySettings small(bool float64 = true) {
  FixedRecoverySettings s;
  s.trainLength = 64;
  s.evalLengths = {64, 256};
  s.omegaCycles = {3};
  s.maxOrder = 3;
  s.float64 = float64;
  return s;
}

const FixedRecoveryRow& rowOf(const std::vector<FixedRecoveryRow>& rows, const std::string& target,
                              const std::string& basis, long long T) {
  for (const auto& r : rows)
    if (r.target == target && r.basis == basis && r.evalLength == T) return r;
  throw std::runtime_error("no row " + target + " " + basis);
}

// Solves the small dense system A x = b by Gaussian elimination with partial pivoting.
std::vector<double> solve(std::vector<std::vector<double>> A, std::vector<double> b) {
  const size_t n = b.size();
  for (size_t c = 0; c < n; ++c) {
    size_t p = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::abs(A[r][c]) > std::abs(A[p][c])) p = r;
    std::swap(A[c], A[p]);
    std::swap(b[c], b[p]);
    for (size_t r = c + 1; r < n; ++r) {
      const double f = A[r][c] / A[c][c];
      for (size_t k = c; k < n; ++k) A[r][k] -= f * A[c][k];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> x(n);
  for (size_t r = n; r-- > 0;) {
    double s = b[r];
    for (size_t k = r + 1; k < n; ++k) s -= A[r][k] * x[k];
    x[r] = s / A[r][r];
  }
  return x;
}
}  // namespace

TEST(FixedKernelRecovery, BasisNamesFollowTheReferenceOrder) {
  const std::vector<std::string> want{"rope",
                                      "alibi",
                                      "alibi_lc",
                                      "rope_alibi",
                                      "jordan_R1",
                                      "scaled_R1",
                                      "scaled_R1_affine",
                                      "jordan_R2",
                                      "scaled_R2",
                                      "scaled_R2_affine",
                                      "lc_R2",
                                      "lc_R2_affine"};
  EXPECT_EQ(fixedRecoveryBasisNames(2), want);
  EXPECT_THROW(fixedRecoveryBasis("jordan_R3", 64, 0.1, 2, {1.0}), InvalidArgument);
}

// A target inside a basis's span is fitted exactly, and the readout extrapolates exactly too.
TEST(FixedKernelRecovery, TargetsInsideABasisAreRecoveredAtEveryLength) {
  const auto rows = runFixedRecovery(small(), {});
  const std::vector<std::pair<std::string, std::string>> exact{{"phase", "rope"},
                                                               {"linear", "alibi"},
                                                               {"first_jet", "jordan_R1"},
                                                               {"second_jet", "scaled_R2"},
                                                               {"third_jet", "scaled_R3"},
                                                               {"lc_core", "lc_R3"},
                                                               {"lc_affine", "lc_R3_affine"}};
  for (const auto& [target, basis] : exact)
    for (long long T : {64LL, 256LL}) {
      const auto& r = rowOf(rows, target, basis, T);
      EXPECT_LT(r.mse, 1e-18) << target << " by " << basis << " at " << T;
      EXPECT_NEAR(r.r2, 1.0, 1e-12) << target << " by " << basis << " at " << T;
    }
  // And one that is not: rope cannot hold a ramp (R2 well below 1 past the window).
  EXPECT_LT(rowOf(rows, "linear", "rope", 256).r2, 0.5);
  // 8 targets x 15 bases x 2 lengths x 1 frequency.
  EXPECT_EQ(rows.size(), 8u * 15u * 2u);
}

// [standardize(x), 1]: orthogonal columns of norms sqrt(N - 1) and sqrt(N).
TEST(FixedKernelRecovery, AlibiConditionNumberIsKnownInClosedForm) {
  const auto rows = runFixedRecovery(small(), {"linear"});
  EXPECT_NEAR(rowOf(rows, "linear", "alibi", 64).conditionNumber, std::sqrt(64.0 / 63.0), 1e-12);
}

// rope_alibi on third_jet, recomputed here: standardize with the unbiased std, normal equations.
TEST(FixedKernelRecovery, OneFitMatchesTheNormalEquations) {
  const auto rows = runFixedRecovery(small(), {"third_jet"});
  const double L = 64, w = 2 * kRecoveryPi * 3 / L;
  auto target = [&](double d) {
    const double x = d / L;
    return x * x * x * std::exp(-0.1 * x) * std::cos(w * d);
  };
  auto features = [&](double d) {
    return std::vector<double>{std::cos(w * d), std::sin(w * d), d / L};
  };
  std::vector<double> mean(3, 0), sd(3, 0);
  for (int d = 0; d < 64; ++d)
    for (int j = 0; j < 3; ++j) mean[j] += features(d)[j] / 64;
  for (int d = 0; d < 64; ++d)
    for (int j = 0; j < 3; ++j) sd[j] += std::pow(features(d)[j] - mean[j], 2) / 63;
  for (auto& s : sd) s = std::sqrt(s);
  auto row = [&](double d) {
    auto f = features(d);
    return std::vector<double>{(f[0] - mean[0]) / sd[0], (f[1] - mean[1]) / sd[1],
                               (f[2] - mean[2]) / sd[2], 1.0};
  };
  std::vector<std::vector<double>> A(4, std::vector<double>(4, 0));
  std::vector<double> b(4, 0);
  for (int d = 0; d < 64; ++d) {
    const auto x = row(d);
    for (int i = 0; i < 4; ++i) {
      b[i] += x[i] * target(d);
      for (int j = 0; j < 4; ++j) A[i][j] += x[i] * x[j];
    }
  }
  const auto coef = solve(A, b);
  for (long long T : {64LL, 256LL}) {
    double sse = 0, mean_y = 0, sst = 0;
    for (int d = 0; d < T; ++d) mean_y += target(d) / static_cast<double>(T);
    for (int d = 0; d < T; ++d) {
      const auto x = row(d);
      double pred = 0;
      for (int i = 0; i < 4; ++i) pred += coef[i] * x[i];
      sse += std::pow(pred - target(d), 2);
      sst += std::pow(target(d) - mean_y, 2);
    }
    const auto& r = rowOf(rows, "third_jet", "rope_alibi", T);
    EXPECT_NEAR(r.mse, sse / static_cast<double>(T), 1e-9 * sse / static_cast<double>(T)) << T;
    EXPECT_NEAR(r.r2, 1 - sse / (sst + 1e-12), 1e-9) << T;
  }
}

// The best basis per target at the longest length, targets sorted by name, and its ratio.
TEST(FixedKernelRecovery, BestRowsAreTheLowestMseAtTheLongestLength) {
  const auto rows = runFixedRecovery(small(), {"recency_weak_jet", "first_jet"});
  const auto best = bestFixedRecovery(rows, fixedRecoveryExactTolerance(true));
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best[0].row.target, "first_jet");
  EXPECT_EQ(best[1].row.target, "recency_weak_jet");
  for (const auto& b : best) {
    EXPECT_EQ(b.row.evalLength, 256);
    for (const auto& r : rows)
      if (r.target == b.row.target && r.evalLength == 256) EXPECT_LE(b.row.mse, r.mse);
    const auto& start = rowOf(rows, b.row.target, b.row.basis, 64);
    EXPECT_DOUBLE_EQ(b.extrapolationRatio, b.row.mse / (start.mse + 1e-12));
  }
}

// phase = cos(omega d) lies in every basis with a free cos(omega d) and sin(omega d) column (rope,
// rope_alibi and the Jordan jets through their x^0 terms) and in no other: those five are exact,
// and the scaled, light-cone and ALiBi bases are not.
TEST(FixedKernelRecovery, ExactFitsListEveryBasisThatSpansTheTarget) {
  const auto rows = runFixedRecovery(small(), {"phase"});
  const auto best = bestFixedRecovery(rows, fixedRecoveryExactTolerance(true));
  ASSERT_EQ(best.size(), 1u);
  const std::vector<std::string> want{"rope", "rope_alibi", "jordan_R1", "jordan_R2", "jordan_R3"};
  EXPECT_EQ(best[0].exactFits, want);
  EXPECT_NE(std::find(want.begin(), want.end(), best[0].row.basis), want.end());
}

// The reference's default dtype, float32, agrees with float64 where the design is well posed.
TEST(FixedKernelRecovery, Float32AgreesWithFloat64OnAWellPosedFit) {
  const auto r64 = runFixedRecovery(small(true), {"third_jet"});
  const auto r32 = runFixedRecovery(small(false), {"third_jet"});
  const auto& a = rowOf(r64, "third_jet", "rope_alibi", 256);
  const auto& b = rowOf(r32, "third_jet", "rope_alibi", 256);
  EXPECT_NEAR(b.r2, a.r2, 1e-4);
  EXPECT_NEAR(b.mse, a.mse, 1e-4 * a.mse + 1e-7);
}

TEST(FixedKernelRecovery, RefusesSettingsOutOfRange) {
  FixedRecoverySettings s = small();
  s.maxOrder = 0;
  EXPECT_THROW(runFixedRecovery(s, {}), InvalidArgument);
  s = small();
  s.evalLengths.clear();
  EXPECT_THROW(runFixedRecovery(s, {}), InvalidArgument);
  s = small();
  s.omegaCycles = {33};  // above L / 2 = 32
  EXPECT_THROW(runFixedRecovery(s, {}), InvalidArgument);
  // 8 targets x 4 frequencies x (64 + 8e6) lags x 81 columns x 2000 (limits/work_budget.h) =
  // 4e14 > 2e12: refused up front, before anything is allocated.
  s = small();
  s.omegaCycles = {1, 2, 3, 4};
  s.evalLengths.assign(8, 1000000);
  EXPECT_THROW(runFixedRecovery(s, {}), InvalidArgument);
  EXPECT_NO_THROW(checkFixedRecoverySettings(s, 0));  // the same lengths for no target: no work
  EXPECT_THROW(runFixedRecovery(small(), {"mixed_raw"}), InvalidArgument);
}
