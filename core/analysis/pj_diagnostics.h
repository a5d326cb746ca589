// PJ-RoPE diagnostics (docs/MATH.md 4.2), per sector and jet order:
//   effective mass     M = g_sector alpha_r |zeta_r| and its share M / sum of the FJ and LC M;
//                      the affine sector's g_aff |slope| apart, with no share (never mixed in);
//   functional energy  E = ||C|| / ||sum_j C_j|| over the evaluation lags;
//   leave-one-out      LOO = MSE(kernel without C, target) - MSE(kernel, target).
#pragma once

#include <string>
#include <vector>

#include "encodings/params.h"
#include "encodings/pj_kernel.h"
#include "tasks/lag_kernels.h"

namespace poslab {

// The family the sector diagnostics fit to a target kernel: a PJ-bias head (MATH 4.2), whichever
// family the user is looking at; its parameters are the user's only when that family is this one.
inline constexpr const char* kPjDiagnosticsFamily = "pj-bias";

struct PjComponentDiagnostic {
  std::string sector;   // "FJ", "affine", "LC"
  long long order = 0;  // jet order r (0 for affine)
  double mass = 0;
  double massShare = 0;  // mass / sum of the FJ and LC masses; NaN for the affine row
  double energy = 0;
  double loo = 0;  // NaN when no target was given
};

struct PjDiagnostics {
  std::vector<PjComponentDiagnostic> rows;  // FJ r = 0..R, affine, LC r = 0..R
  double kernelMse = 0;                     // MSE(kernel, target); NaN without a target
};

// Components C of one head over `lags` and their masses, from the head's coefficients.
// target may be empty (then LOO and kernelMse are NaN).
PjDiagnostics pjDiagnoseHead(const PjShape& shape, const PjHead& head,
                             const std::vector<double>& lags, const std::vector<double>& target);

// Fits the PJ-bias basis of one head (frequency omega, damping kappa) to the target by least
// squares and reads the fit as a head: per sector and order, g alpha zeta = c_cos - i c_sin.
struct PjFit {
  PjHead head;  // coefficients that reproduce the fit
  PjDiagnostics diagnostics;
  // Of the basis with each column scaled to unit norm (float64 SVD, largest / smallest singular
  // value; infinite when a column is dependent). Above kPjIllConditioned the fit's values are
  // fine but its split into sectors and orders is not determined by the data.
  double conditionNumber = 0;
};
inline constexpr double kPjIllConditioned = 1e6;
PjFit pjFitAndDiagnose(const PjShape& shape, double omega, double kappa,
                       const std::vector<double>& lags, const std::vector<double>& target);

// The diagnose workflow (CLI `diagnose`, GUI diagnostics tab; MATH 4.2.4): a MATH 3.2.1 target
// over lags 1..L-1, fitted by the PJ-bias basis whose shape (L, order, rho, kappa) comes from a
// pj-bias parameter set; the head's frequency is the target's omega, or else the shown head's own.
struct PjTargetFit {
  std::string target;
  double omega = 0;            // frequency the fit used
  std::vector<double> lags;    // 1..L-1
  std::vector<double> values;  // the target K(d)
  PjFit fit;
};
PjTargetFit fitPjToTarget(const std::string& target, const ParamSet& pjParams,
                          const LagKernelParams& targetParams, bool frequencyFromTarget);

}  // namespace poslab
