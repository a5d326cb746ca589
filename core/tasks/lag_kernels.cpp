#include "tasks/lag_kernels.h"

#include <cmath>
#include <cstdlib>

#include "util/error.h"

namespace poslab {

namespace {
// N of "high_jet_rN", or -1 if the name has another form.
int highJetOrder(const std::string& name) {
  const std::string prefix = "high_jet_r";
  if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size()) return -1;
  const std::string digits = name.substr(prefix.size());
  for (char c : digits)
    if (c < '0' || c > '9') return -1;
  const int n = std::atoi(digits.c_str());
  return (n >= 1 && n <= 16) ? n : -1;
}
}  // namespace

std::vector<std::string> lagKernelNames() {
  return {"mixed_raw",       "mixed_bounded", "damped_mixed",
          "rhythm_envelope", "high_jet_r2",   "high_jet_r3"};
}

void checkLagKernelName(const std::string& name) {
  for (const auto& n : lagKernelNames())
    if (n == name) return;
  if (highJetOrder(name) > 0) return;
  throw InvalidArgument("unknown target kernel '" + name + "'",
                        "known: mixed_raw, mixed_bounded, damped_mixed, rhythm_envelope, "
                        "high_jet_rN with N = 1..16");
}

std::vector<double> lagKernel(const std::string& name, const LagKernelParams& p,
                              const std::vector<double>& lags) {
  checkLagKernelName(name);
  if (!(p.L > 0) || !std::isfinite(p.L)) throw InvalidArgument("target L must be positive");
  const int jet = highJetOrder(name);
  std::vector<double> k(lags.size());
  for (size_t n = 0; n < lags.size(); ++n) {
    const double d = lags[n], u = d / p.L, c = std::cos(p.omega * d);
    if (name == "mixed_raw")
      k[n] = u * c;
    else if (name == "mixed_bounded")
      k[n] = (d / (1.0 + u)) / p.L * c;
    else if (name == "damped_mixed")
      k[n] = std::exp(-p.gamma * d) * (c + 0.75 * u * std::sin(p.omega * d));
    else if (name == "rhythm_envelope")
      k[n] = (0.25 + 0.85 * u) * (0.65 * c + 0.35 * std::sin(p.omega2 * d));
    else
      k[n] = std::pow(u, jet) * c;
  }
  return k;
}

LagKernelParams defaultLagKernelParams(long long headDim, double base, double L) {
  LagKernelParams p;
  p.L = L;
  p.omega = std::pow(base, -2.0 * 3 / static_cast<double>(headDim));
  p.omega2 = std::pow(base, -2.0 * 1 / static_cast<double>(headDim));
  return p;
}

}  // namespace poslab
