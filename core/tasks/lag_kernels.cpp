#include "tasks/lag_kernels.h"

#include <cmath>
#include <cstdlib>

#include "util/error.h"

namespace poslab {

namespace {
constexpr int kMainFrequencyIndex = 3;    // the reference's target_freq_index
constexpr int kSecondFrequencyIndex = 5;  // the reference's second_freq_index
constexpr int kMaxJetOrder = 16;

// N of "<prefix>N" for N = 1..kMaxJetOrder, or -1 if the name has another form.
int jetOrder(const std::string& name, const std::string& prefix) {
  if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size()) return -1;
  const std::string digits = name.substr(prefix.size());
  if (digits.size() > 2) return -1;
  for (char c : digits)
    if (c < '0' || c > '9') return -1;
  const int n = std::atoi(digits.c_str());
  return (n >= 1 && n <= kMaxJetOrder) ? n : -1;
}
int highJetOrder(const std::string& name) {
  return jetOrder(name, "high_jet_r");
}
int scaledHighJetOrder(const std::string& name) {
  return jetOrder(name, "scaled_high_jet_r");
}
}  // namespace

std::vector<std::string> lagKernelNames() {
  return {"mixed_raw",   "mixed_bounded", "damped_mixed",      "rhythm_envelope",
          "high_jet_r2", "high_jet_r3",   "scaled_high_jet_r3"};
}

void checkLagKernelName(const std::string& name) {
  for (const auto& n : lagKernelNames())
    if (n == name) return;
  if (highJetOrder(name) > 0 || scaledHighJetOrder(name) > 0) return;
  throw InvalidArgument("unknown target kernel '" + name + "'",
                        "known: mixed_raw, mixed_bounded, damped_mixed, rhythm_envelope, "
                        "high_jet_rN, scaled_high_jet_rN with N = 1..16");
}

std::vector<double> lagKernel(const std::string& name, const LagKernelParams& p,
                              const std::vector<double>& lags) {
  checkLagKernelName(name);
  if (!(p.L > 0) || !std::isfinite(p.L)) throw InvalidArgument("target L must be positive");
  const int jet = highJetOrder(name), scaledJet = scaledHighJetOrder(name);
  std::vector<double> k(lags.size());
  for (size_t n = 0; n < lags.size(); ++n) {
    const double d = lags[n], x = d / p.L, c = std::cos(p.omega * d);
    if (name == "mixed_raw")
      k[n] = x * c;
    else if (name == "mixed_bounded")
      k[n] = (d / (1.0 + x)) / p.L * c;
    else if (name == "damped_mixed")
      k[n] = std::exp(-p.gamma * d) * (c + 0.75 * x * std::sin(p.omega * d));
    else if (name == "rhythm_envelope")
      k[n] = (0.25 + 0.85 * x) * (0.65 * c + 0.35 * std::sin(p.omega2 * d));
    else if (scaledJet > 0)
      k[n] = std::pow(x, scaledJet) * std::exp(-p.scaledC * x) * c;
    else
      k[n] = std::pow(x, jet) * c;
  }
  return k;
}

LagKernelParams defaultLagKernelParams(long long headDim, double base, double L) {
  LagKernelParams p;
  p.L = L;
  p.omega = std::pow(base, -2.0 * kMainFrequencyIndex / static_cast<double>(headDim));
  p.omega2 = std::pow(base, -2.0 * kSecondFrequencyIndex / static_cast<double>(headDim));
  return p;
}

}  // namespace poslab
