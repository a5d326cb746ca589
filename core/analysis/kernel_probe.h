// The kernel probe (docs/MATH.md 4.1): least-squares fit of a target lag function over d in [1, L)
// with each family's kernel basis; MSE per family. No training. Every family is probed at the
// target's frequency channel (Encoding::probeBasis): RoPE with the pair nearest omega, the Jordan
// families with one block at omega, ALiBi with its per-head ramps.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace poslab {

struct ProbeSettings {
  std::string target = "mixed_raw";         // a name from lagKernelNames()
  std::map<std::string, double> overrides;  // NAME=VALUE, applied to every family that has NAME
  std::vector<std::string> families;        // empty: defaultProbeFamilies()
};

struct ProbeFamilyResult {
  std::string family;
  double mse = 0;
  long long basisSize = 0;     // columns in the family's basis
  long long rank = 0;          // independent columns
  std::vector<double> fitted;  // the best fit over the probe lags
};

struct ProbeReport {
  std::string target;
  std::vector<double> lags;                // 1..L-1
  std::vector<double> targetValues;        // K(d)
  std::vector<ProbeFamilyResult> results;  // best (lowest MSE) first
};

// The paper's comparison: RoPE, ALiBi, direct sum, damped RoPE, stabilized and exact Jordan.
std::vector<std::string> defaultProbeFamilies();

// Target parameters come from the overrides too: L (default 256), omega (default base^(-6/D) with
// base and head_dim from the overrides or 10000 and 16), gamma, omega2. An override that no chosen
// family and no target uses is an error.
ProbeReport runKernelProbe(const ProbeSettings& settings);

}  // namespace poslab
