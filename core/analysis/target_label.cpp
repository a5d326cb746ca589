#include "analysis/target_label.h"

#include <map>

namespace poslab {

namespace {

// N of "<prefix>N" for N = 1..16 (the kernel-LM targets' jet orders), or "".
std::string jetOrder(const std::string& name, const std::string& prefix) {
  if (name.compare(0, prefix.size(), prefix) != 0) return {};
  const std::string digits = name.substr(prefix.size());
  if (digits.empty() || digits.size() > 2 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return {};
  const int n = std::stoi(digits);
  return n >= 1 && n <= 16 ? std::to_string(n) : std::string{};
}

// MATH 3.2.1, u = d/L written out; "" for another name.
std::string lagKernelLabel(const std::string& name) {
  static const std::map<std::string, std::string> labels = {
      {"mixed_raw", "(d/L) cos ωd"},
      {"mixed_bounded", "(τ(d)/L) cos ωd"},
      {"damped_mixed", "e^{−γd} (cos ωd + 0.75 (d/L) sin ωd)"},
      {"rhythm_envelope", "(0.25 + 0.85 d/L) (0.65 cos ωd + 0.35 sin ω_2d)"},
  };
  if (auto it = labels.find(name); it != labels.end()) return it->second;
  if (const std::string n = jetOrder(name, "high_jet_r"); !n.empty())
    return "(d/L)^{" + n + "} cos ωd";
  if (const std::string n = jetOrder(name, "scaled_high_jet_r"); !n.empty())
    return "(d/L)^{" + n + "} e^{−c d/L} cos ωd";
  return {};
}

// MATH 3.4's teachers (the reference ones are the PJ adaptive recovery's targets, with its
// "linear"); "" for another name.
std::string sectorTargetLabel(const std::string& name) {
  static const std::string lcCore = "cos(ω φ_L(d)) (1 + 0.4 β_L(d) + 0.2 β_L(d)^2)";
  static const std::map<std::string, std::string> labels = {
      {"phase", "cos ωd"},
      {"linear", "d/L"},
      {"first_jet", "(d/L) cos ωd"},
      {"second_jet", "(d/L)^2 e^{−0.1 d/L} cos ωd"},
      {"third_jet", "(d/L)^3 e^{−0.1 d/L} cos ωd"},
      {"affine", "−0.4 d/L"},
      {"recency_weak_jet", "−0.4 d/L + 0.15 (d/L)^2 cos ωd"},
      {"lc_core", lcCore},
      {"lc_affine", lcCore + " − 0.25 asinh(d/L)"},
      {"poslab-jet2", "\\frac{(d/L)^2}{2} cos ωd"},
      {"poslab-jet3", "\\frac{(d/L)^3}{6} cos ωd"},
      {"poslab-affine", "−d/L"},
      {"poslab-recency", "−d/L + 0.25 (d/L) cos ωd"},
      {"poslab-lc", "cos(ω φ_L(d))"},
      {"poslab-lc-affine", "0.5 cos(ω φ_L(d)) − 0.5 asinh(d/L)"},
  };
  auto it = labels.find(name);
  return it == labels.end() ? std::string{} : it->second;
}

}  // namespace

std::string probeTargetLabel(const std::string& name) {
  // MATH 4.1's toy targets (the reference toy study's phase, linear, mixed).
  static const std::map<std::string, std::string> toy = {
      {"phase", "cos ωd"}, {"linear", "−d/L"}, {"mixed", "(d/L) cos ωd"}};
  if (auto it = toy.find(name); it != toy.end()) return it->second;
  const std::string label = lagKernelLabel(name);
  return label.empty() ? name : label;
}

std::string taskKernelLabel(const std::string& name) {
  std::string label = lagKernelLabel(name);
  if (label.empty()) label = sectorTargetLabel(name);
  return label.empty() ? name : label;
}

}  // namespace poslab
