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
  auto theta = ropeFrequencies(D, base);
  auto corr = [&](double r) {
    return D * std::log(Ltrain / (2 * M_PI * r)) / (2 * std::log(base));
  };
  const double low = std::max(std::floor(corr(32)), 0.0);
  double high = std::min(std::ceil(corr(1)), static_cast<double>(D / 2 - 1));
  if (low == high) high += 0.001;
  for (long long c = 0; c < D / 2; ++c) {
    const double ramp = std::clamp((c - low) / (high - low), 0.0, 1.0);
    const double mask = 1.0 - ramp;
    theta[c] = (theta[c] / s) * (1.0 - mask) + theta[c] * mask;
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
