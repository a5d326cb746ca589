// The kernel probe (docs/MATH.md 4.1), as the Jordan-RoPE reference's toy study
// (ybzhang-nxu/jordan_rope scripts/run_toy.py with configs/full_research.yaml's toy block): a
// target lag function K(d) is fitted on the training window d = 0 .. L-1 by ridge regression
// (ridge 1e-4) with a constant column and each family's lag functions at every frequency channel
// w_c = base^(-2c/D), c = 0 .. channels-1 (default L = 1024, D = 64, 16 channels); the fit is then
// evaluated, unchanged, on d = 0 .. nL-1 for n = 1, 2, 4, 8. No training.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace poslab {

struct ProbeSettings {
  std::string target = "mixed";             // a name from probeTargetNames()
  std::map<std::string, double> overrides;  // NAME=VALUE, applied to every family that has NAME
  std::vector<std::string> families;        // empty: defaultProbeFamilies()
};

struct ProbeFamilyResult {
  std::string family;
  std::vector<double> mseByLength;  // MSE over d = 0 .. n-1 for n in ProbeReport::evalLengths
  double mseInWindow = 0;           // mseByLength.front(): the training window 0 .. L-1
  double mseExtrapolated = 0;       // mseByLength.back(): out to 8x the window
  long long basisSize = 0;          // columns fitted: the constant and the distinct family columns
  std::vector<double> fitted;       // the fit over every probe lag
};

struct ProbeReport {
  std::string target;
  long long trainLength = 0;           // L: the fit sees d = 0 .. L-1
  std::vector<long long> evalLengths;  // L, 2L, 4L, 8L (the reference's eval_contexts)
  long long channels = 0;              // frequency channels per family
  double omega = 0;                    // the target's frequency
  double ridge = 0;
  std::vector<double> lags;                // 0 .. 8L-1
  std::vector<double> targetValues;        // K(d)
  std::vector<ProbeFamilyResult> results;  // best (lowest MSE out to 8x the window) first
};

// The reference's toy targets (phase, linear, mixed), then the kernel-LM targets (lagKernelNames).
std::vector<std::string> probeTargetNames();

// The toy targets with x = d/L and w = the target's omega (default base^(-2*3/D), the reference's
// target_freq_index 3):  phase  cos(w d);  linear  -x;  mixed  x cos(w d). Other names: lagKernel.
// Throws InvalidArgument for an unknown name.
std::vector<double> probeTarget(const std::string& name, double L, double omega,
                                const std::vector<double>& lags,
                                const std::map<std::string, double>& overrides);

// The paper's comparison: RoPE, ALiBi, direct sum, damped RoPE, stabilized and exact Jordan.
std::vector<std::string> defaultProbeFamilies();

// Overrides: L (default 1024), head_dim (64), base (10000), channels (head_dim/4), ridge (1e-4),
// omega (the target's, default base^(-6/D)), gamma and omega2 (the target's and every family's
// that has them). L, head_dim and base go to every family that has them. An override that no
// chosen family and no target uses is an error, as is a family that refuses the probe's head_dim.
ProbeReport runKernelProbe(const ProbeSettings& settings);
// runKernelProbe's checks alone, before any work: the target, finite values, L, head_dim, base,
// channels and ridge in their ranges, and every family built with them (the first to fail named).
// Throws InvalidArgument. The CLI asks it before the work budget, so that a value out of range is
// named as given, not as the budget's estimate clamps it.
void checkProbeSettings(const ProbeSettings& settings);

// The size of the probe `settings` ask for, read with runKernelProbe's defaults and clamped to its
// ranges (which it checks itself): for the work estimate (limits/work_budget.h's kernelProbeCost)
// made before it runs.
struct ProbeSize {
  long long families = 0;     // fitted families
  long long channels = 0;     // frequency channels per family
  long long trainLength = 0;  // L: the fit sees d < L and is evaluated out to 8L
};
ProbeSize probeSize(const ProbeSettings& settings);

}  // namespace poslab
