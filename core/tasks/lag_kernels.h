// Target lag kernels K(d) of the kernel-LM task and the kernel probe (docs/MATH.md 3.2.1).
#pragma once

#include <string>
#include <vector>

namespace poslab {

struct LagKernelParams {
  double L = 256;       // context scale
  double omega = 0.0;   // main frequency; MATH 3.2.1: base^(-2*3/D_head) (set by the caller)
  double omega2 = 0.0;  // second frequency of rhythm_envelope: base^(-2*1/D_head) by default
  double gamma = 0.01;  // decay of damped_mixed (rad^-1 per position)
};

// Known names: mixed_raw, mixed_bounded, damped_mixed, rhythm_envelope, high_jet_rN (N >= 1).
std::vector<std::string> lagKernelNames();
// Throws InvalidArgument for an unknown name (listing the known ones).
void checkLagKernelName(const std::string& name);

// K(d) at each lag, float64, straight from MATH 3.2.1:
//   mixed_raw       (d/L) cos(omega d)
//   mixed_bounded   (tau(d)/L) cos(omega d),  tau(d) = d / (1 + d/L)
//   damped_mixed    e^(-gamma d)(cos(omega d) + 0.75 (d/L) sin(omega d))
//   rhythm_envelope (0.25 + 0.85 d/L)(0.65 cos(omega d) + 0.35 sin(omega2 d))
//   high_jet_rN     (d/L)^N cos(omega d)
std::vector<double> lagKernel(const std::string& name, const LagKernelParams& p,
                              const std::vector<double>& lags);

// Defaults for a head of dimension D and base: omega = base^(-6/D), omega2 = base^(-2/D).
LagKernelParams defaultLagKernelParams(long long headDim = 16, double base = 10000, double L = 256);

}  // namespace poslab
