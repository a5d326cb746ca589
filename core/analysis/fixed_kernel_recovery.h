// The fixed kernel basis recovery (docs/MATH.md 4.2.6; the PJ-RoPE paper's Phase B low-cost
// probe, its reference experiments/fixed_kernel_recovery.py): for each sector target K(d) of
// MATH 4.2.5 and each fixed scalar basis B(d) (rope, alibi, Jordan and scaled jets, light cone),
// fit a linear readout K ~ [standardize(B(d)), 1] w by least squares on d = 0 .. L-1, then report
// the MSE and R^2 of the same readout on d = 0 .. T-1 for each evaluation length T, and the
// condition number of the training design. No training, no randomness.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace poslab {

struct FixedRecoverySettings {
  long long trainLength = 1024;                                // L: fit on d = 0 .. L-1
  std::vector<long long> evalLengths{1024, 2048, 4096, 8192};  // T: evaluate on d = 0 .. T-1
  std::vector<double> omegaCycles{5, 17, 61};                  // omega = 2 pi cycles / L
  long long maxOrder = 3;                                      // R: jets of order 1 .. R
  bool float64 = false;  // the reference computes in float32 unless --float64
};

// One fit evaluated at one length (the reference's FitResult row).
struct FixedRecoveryRow {
  double omegaCycles = 0;
  std::string target;
  std::string basis;
  long long evalLength = 0;
  double trainMse = 0;
  double mse = 0;
  double r2 = 0;
  double conditionNumber = 0;  // of the training design [standardized B, 1], float64 SVD
};

// The best basis of one (frequency, target) at the longest evaluation length, and how much its
// MSE grew from the shortest: mse(T_max) / (mse(T_min) + 1e-12). When several bases span the
// target, all fit it to rounding and which of them has the lowest MSE is rounding noise (it
// changes with the precision and the BLAS): exactFits lists every basis with 1 - R^2 at most
// the tolerance at the longest length, so a reader sees the tie.
struct FixedRecoveryBest {
  FixedRecoveryRow row;
  double extrapolationRatio = 0;
  std::vector<std::string> exactFits;  // in the rows' (basis) order
};

// 1 - R^2 below which a fit counts as exact: float32's rounding of the fit (about 1e-8 of the
// target's variance at T = 8192) with margin, or float64's.
double fixedRecoveryExactTolerance(bool float64);

// The reference's basis names in its order for orders 1 .. R: rope, alibi, alibi_lc, rope_alibi,
// then jordan_Rr, scaled_Rr, scaled_Rr_affine per order, then lc_RR and lc_RR_affine.
std::vector<std::string> fixedRecoveryBasisNames(long long maxOrder);

// The basis features of `basis` at lags d (float64): a vector of columns, each one value per lag.
// x = d/L; jordan_Rr: x^k cos(omega d), x^k sin(omega d) for k = 0..r; scaled_Rr the same times
// e^(-0.1 x); lc_RR: beta_L(d)^k cos(omega phi_L(d)), ... sin(...) for k = 0..R; alibi_lc:
// asinh(d/L). Throws InvalidArgument for an unknown name.
std::vector<std::vector<double>> fixedRecoveryBasis(const std::string& basis, double L,
                                                    double omega, long long maxOrder,
                                                    const std::vector<double>& lags);

// Throws InvalidArgument naming the setting out of range, or the work of `targetCount` targets
// (limits/work_budget.h's fixedRecoveryCost) when it exceeds the budget of a request with
// progress.
void checkFixedRecoverySettings(const FixedRecoverySettings& s, size_t targetCount);

// Every (frequency, target, basis, evaluation length) row, in the reference's loop order;
// targets: the reference's eight (pjAdaptiveTargetNames without `affine`) or the given subset.
// progress, when given, is called after each (frequency, target, basis) with the count done and
// the total.
std::vector<FixedRecoveryRow> runFixedRecovery(
    const FixedRecoverySettings& s, const std::vector<std::string>& targets,
    const std::function<void(long long done, long long total)>& progress = {});

// Per frequency and target (in the rows' order), the lowest-MSE basis at the longest length.
// exactTolerance: see FixedRecoveryBest::exactFits.
std::vector<FixedRecoveryBest> bestFixedRecovery(const std::vector<FixedRecoveryRow>& rows,
                                                 double exactTolerance);

}  // namespace poslab
