// Frequency, scale and slope schedules of docs/MATH.md 1.2 and 1.3, in float64.
#pragma once

#include <vector>

namespace poslab {

// theta_c = base^(-2c/D), c = 0..D/2-1.
std::vector<double> ropeFrequencies(long long D, double base);
// omega_b = base^(-2b/D), b = 0..blocks-1: the RoPE schedule over Jordan blocks (MATH 1.7.1).
std::vector<double> blockFrequencies(long long blocks, long long D, double base);
// Position interpolation: theta_c / s.
std::vector<double> piFrequencies(long long D, double base, double s);
// NTK-aware: base' = base * s^(D/(D-2)).
double ntkBase(long long D, double base, double s);
// YaRN's blended frequencies theta'_c (MATH 1.2.3) for training length Ltrain, as the PJ-RoPE
// reference blends them: by the rotation count r_c = Ltrain theta_c / (2 pi) of each pair.
std::vector<double> yarnFrequencies(long long D, double base, double s, double Ltrain);
// YaRN's attention temperature: q and k are each scaled by 0.1 ln(s) + 1.
double yarnTemperature(double s);
// xPos: zeta_c = (2c + 0.4 D) / (1.4 D), c = 0..D/2-1.
std::vector<double> xposZeta(long long D);
// xPos's scale base: q scaled by zeta^(i / 512), k by zeta^(-j / 512).
inline constexpr double kXposScaleBase = 512.0;
// ALiBi slopes m_h, h = 1..H (MATH 1.3, including the non-power-of-two rule).
std::vector<double> alibiSlopes(long long H);

}  // namespace poslab
