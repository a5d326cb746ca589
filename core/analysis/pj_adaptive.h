// PJ adaptive recovery (docs/MATH.md 4.2.5), as the PJ-RoPE reference's
// experiments/adaptive_spectrum_diagnostic.py: a one-head, three-sector PJ kernel with softmax
// gates and softmax order weights, fitted by Adam to a sector target on d = 0 .. L-1 and
// evaluated on d = 0 .. T-1. Per target the best of several restarts (seed + 7919 restart) by
// training MSE is reported: training and extrapolation MSE and R^2, the gates, the per-order mass
// g alpha |zeta| (FJ and LC), their normalised sum per order, and per order r, with
// C_r = g_FJ FJ_r + g_LC LC_r over the evaluation lags, the functional energy ||C_r|| / ||sum C||
// and the leave-one-order-out increase of the MSE.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace poslab {

// The kernel's learnables, raw (before softmax / softplus), R + 1 entries per order vector.
struct PjAdaptiveParams {
  std::array<double, 3> gateLogits{0.0, -0.2, -0.2};           // FJ, affine, LC
  std::vector<double> fjAlphaLogits, lcAlphaLogits;            // zeros
  std::vector<double> fjZetaRe, fjZetaIm, lcZetaRe, lcZetaIm;  // 0.05 N(0, 1)
  double affineSlope = 0;
  double rawDamping = -2;  // damping kappa = softplus(raw)
};

struct PjAdaptiveSettings {
  long long trainLength = 1024;  // L: fit on d = 0 .. L-1 (--train-len)
  long long evalLength = 4096;   // T: evaluate on d = 0 .. T-1 (--eval-len)
  double omegaCycles = 17;       // omega = 2 pi cycles / L
  long long maxOrder = 3;        // R
  long long steps = 1500;        // Adam steps per restart
  double lr = 3e-2;
  long long restarts = 2;
  bool orderInitCycle = false;  // restart k starts with its alpha mass on order k mod (R+1)
  bool selectByEval = false;    // pick the restart by evaluation MSE (default: training MSE)
  uint64_t seed = 0;
  bool float64 = false;  // train in float64 (the reference's default is float32)
};

struct PjAdaptiveResult {
  std::string target;
  long long restart = 0;  // the restart reported
  double trainMse = 0, trainR2 = 0, evalMse = 0, evalR2 = 0;
  std::array<double, 3> gates{};  // FJ, affine, LC after softmax
  double affineSlope = 0;
  double damping = 0;
  std::vector<double> fjMass, lcMass;  // g alpha_r |zeta_r|, r = 0 .. R
  std::vector<double> orderMass;       // (fjMass + lcMass) / sum, per order
  std::vector<double> energy;          // ||C_r|| / (||sum_r C_r|| + 1e-12)
  std::vector<double> loo;             // MSE(pred - C_r) - MSE(pred), evaluation lags
  long long topOrder = 0;              // argmax orderMass
  std::vector<double> evalLags;        // 0 .. T-1
  std::vector<double> targetValues;    // the target over evalLags
  std::vector<double> prediction;      // the fitted kernel over evalLags
};

// The eight targets of the reference script in its order, then the sector teachers' affine.
std::vector<std::string> pjAdaptiveTargetNames();
bool isPjAdaptiveTarget(const std::string& name);
// With x = d/L and the light-cone chart of MATH 1.8.1:  phase cos(w d);  linear x;  first_jet,
// second_jet, third_jet, recency_weak_jet, lc_core, lc_affine and affine as the sector teachers
// (MATH 3.4). Throws InvalidArgument for an unknown name.
std::vector<double> pjAdaptiveTarget(const std::string& name, double L, double omega,
                                     const std::vector<double>& lags);

// Initial raw values for restart k (zeta from the generator seeded seed + 7919 k).
PjAdaptiveParams pjAdaptiveInitialParams(const PjAdaptiveSettings& s, long long restart);

// The kernel at each lag, float64, plain loops (the reference for the trained forward):
//   g_FJ sum_r (x^r/r!) e^(-kappa x) alpha_r Re(zeta_r e^(i w d)) + g_aff slope x
//   + g_LC sum_r beta_L(d)^r alpha_r Re(zeta_r e^(i w phi_L(d))).
// Re(zeta e^(i t)) = Re zeta cos t - Im zeta sin t.
std::vector<double> pjAdaptiveKernel(const PjAdaptiveParams& p, double L, double omega,
                                     const std::vector<double>& lags);

// The report of given parameters against a target (float64), without training.
PjAdaptiveResult pjAdaptiveEvaluate(const PjAdaptiveParams& p, const PjAdaptiveSettings& s,
                                    const std::string& target);

// The raw parameters after `steps` Adam steps from pjAdaptiveInitialParams(s, restart) on the
// training MSE (in float32 unless s.float64).
// onStep, when given, is called after each step with the steps done (1 .. steps).
PjAdaptiveParams pjAdaptiveTrain(const PjAdaptiveSettings& s, const std::string& target,
                                 long long restart,
                                 const std::function<void(long long)>& onStep = {});

// The whole diagnostic: for each target the best restart. Throws InvalidArgument for a bad
// setting (naming it) or an unknown target. progress, when given, is called after each Adam step
// and each restart's evaluation with the units done and their total: targets x restarts x
// (steps + 1).
std::vector<PjAdaptiveResult> runPjAdaptive(
    const PjAdaptiveSettings& s, const std::vector<std::string>& targets,
    const std::function<void(long long done, long long total)>& progress = {});

// Checks each setting's range; throws InvalidArgument naming the first bad one.
void checkPjAdaptiveSettings(const PjAdaptiveSettings& s);

}  // namespace poslab
