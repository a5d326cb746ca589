#include "encodings/schedules.h"

#include <algorithm>
#include <cmath>

namespace poslab {

std::vector<double> ropeFrequencies(long long D, double base) {
  std::vector<double> theta(static_cast<size_t>(D / 2));
  for (long long c = 0; c < D / 2; ++c) theta[c] = std::pow(base, -2.0 * c / D);
  return theta;
}

std::vector<double> blockFrequencies(long long blocks, long long D, double base) {
  std::vector<double> omega(static_cast<size_t>(blocks));
  for (long long b = 0; b < blocks; ++b) omega[b] = std::pow(base, -2.0 * b / D);
  return omega;
}

std::vector<double> piFrequencies(long long D, double base, double s) {
  auto theta = ropeFrequencies(D, base);
  for (auto& t : theta) t /= s;
  return theta;
}

double ntkBase(long long D, double base, double s) {
  return base * std::pow(s, static_cast<double>(D) / static_cast<double>(D - 2));
}

std::vector<double> yarnFrequencies(long long D, double base, double s, double Ltrain) {
  constexpr double kSlowRotations = 1, kFastRotations = 32;  // beta_slow, beta_fast
  auto theta = ropeFrequencies(D, base);
  for (double& t : theta) {
    const double rotations = Ltrain * t / (2 * M_PI);  // turns of the pair over Ltrain
    const double keep = std::clamp((rotations - kSlowRotations) / (kFastRotations - kSlowRotations),
                                   0.0, 1.0);  // 1: keep theta (fast pair), 0: theta / s
    t = (t / s) * (1.0 - keep) + t * keep;
  }
  return theta;
}

double yarnTemperature(double s) {
  return 0.1 * std::log(s) + 1.0;
}

std::vector<double> xposZeta(long long D) {
  std::vector<double> zeta(static_cast<size_t>(D / 2));
  for (long long c = 0; c < D / 2; ++c) zeta[c] = (2.0 * c + 0.4 * D) / (1.4 * D);
  return zeta;
}

namespace {
std::vector<double> powerOfTwoSlopes(long long n) {
  std::vector<double> m(static_cast<size_t>(n));
  for (long long h = 1; h <= n; ++h) m[h - 1] = std::pow(2.0, -8.0 * h / n);
  return m;
}
}  // namespace

std::vector<double> alibiSlopes(long long H) {
  long long c = 1;
  while (c * 2 <= H) c *= 2;  // largest power of two <= H
  std::vector<double> slopes = powerOfTwoSlopes(c);
  if (c == H) return slopes;
  const std::vector<double> doubled = powerOfTwoSlopes(2 * c);
  for (size_t n = 0; n < doubled.size() && static_cast<long long>(slopes.size()) < H; n += 2) {
    slopes.push_back(doubled[n]);
  }
  return slopes;
}

}  // namespace poslab
