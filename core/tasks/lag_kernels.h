// Target lag kernels K(d) of the kernel-LM task and the kernel probe
// (Jordan-RoPE paper; docs/MATH.md 3.2.1): the reference code's benchmarks (ybzhang-nxu/jordan_rope
// scripts/run_kernel_lm.py, kernel_values, with configs/kernel_lm.yaml's
// defaults).
#pragma once

#include <string>
#include <vector>

namespace poslab {

struct LagKernelParams {
  double L = 256;        // context scale: the training length (the reference's seq_len_train)
  double omega = 0.0;    // main frequency: base^(-2*3/D_head) (target_freq_index 3)
  double omega2 = 0.0;   // second frequency of rhythm_envelope: base^(-2*5/D_head) (index 5)
  double gamma = 1e-4;   // decay of damped_mixed per position (the reference's gamma 1e-4)
  double scaledC = 0.1;  // c of scaled_high_jet_rN (the reference's scaled_c 0.1)
};

// Known names: mixed_raw, mixed_bounded, damped_mixed, rhythm_envelope,
// high_jet_rN and scaled_high_jet_rN (N = 1..16).
std::vector<std::string> lagKernelNames();
// Throws InvalidArgument for an unknown name (listing the known ones).
void checkLagKernelName(const std::string& name);

// K(d) at each lag, float64, with x = d/L:
//   mixed_raw           x cos(omega d)
//   mixed_bounded       (tau(d)/L) cos(omega d),  tau(d) = d / (1 + x)
//   damped_mixed        e^(-gamma d)(cos(omega d) + 0.75 x sin(omega d))
//   rhythm_envelope     (0.25 + 0.85 x)(0.65 cos(omega d) + 0.35 sin(omega2 d))
//   high_jet_rN         x^N cos(omega d)
//   scaled_high_jet_rN  x^N e^(-c x) cos(omega d)
std::vector<double> lagKernel(const std::string& name, const LagKernelParams& p,
                              const std::vector<double>& lags);

// Defaults for a head of dimension D and base: omega = base^(-6/D), omega2 =
// base^(-10/D).
LagKernelParams defaultLagKernelParams(long long headDim = 16, double base = 10000, double L = 256);

}  // namespace poslab
