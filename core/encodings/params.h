// Named scalar parameters of an encoding family: their specs (default, range, meaning) and a
// validated set of values. Names follow docs/MATH.md: gamma, omega, eta, L, c, base, scale, kappa,
// order, heads, head_dim, g_fj, g_aff, g_lc, plus a few family-specific ones.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace poslab {

// A setting of another parameter under which this one changes nothing the family computes
// (no score, bias or kernel-view basis); the GUI disables its control and shows the reason.
// tests/core/test_param_effects.cpp checks every such claim numerically.
struct ParamNoEffect {
  std::string other;   // e.g. "pin_omega"
  double value = 0;    // no effect while other == value
  std::string reason;  // e.g. "every block rotates at ω while pin_omega = 1"
};

struct ParamSpec {
  std::string name;         // e.g. "gamma"
  double defaultValue;      // e.g. 1e-4
  double min;               // inclusive lower bound
  double max;               // inclusive upper bound
  bool integer = false;     // must be a whole number (heads, head_dim, order)
  std::string description;  // one line with the formula it enters, shown in --help and tooltips
  std::vector<ParamNoEffect> noEffectWhen = {};  // settings that make this parameter irrelevant
  // The model's initial value when the user sets none (MATH 2.3), e.g. eta = 0 for the Jordan
  // families; unset: the model starts from defaultValue like the explorer.
  std::optional<double> trainedInit = std::nullopt;

  // An on/off switch: a whole number in {0, 1} (pin_omega, rho).
  bool isSwitch() const { return integer && min == 0 && max == 1; }
};

// The parameter's mathematical symbol in the formula markup (docs/MATH.md 0.7): "γ" for gamma,
// "g_{FJ}" for g_fj, "D" for head_dim; the name itself where it has none.
std::string paramSymbol(const std::string& name);

// The symbol of a learned position parameter as Snapshot::position names it (docs/MATH.md 2.3's
// list): paramSymbol's where the name is a parameter's ("gamma" -> "γ"), the sector gates as
// g_{FJ}, g_{aff}, g_{LC}, the effective masses of MATH 4.2.1 as M(FJ, r) and M(affine), PoPE's
// per-head mean phase as δ̄; the name itself where it has none.
std::string learnedParamSymbol(const std::string& name);

// The reason `spec` has no effect under `values` (the family's current parameter values), or
// an empty string when it has an effect.
std::string noEffectReason(const ParamSpec& spec, const std::map<std::string, double>& values);

// Values of a family's parameters. Every value is finite, inside its spec's range, and whole
// where the spec says so; anything else raises InvalidArgument naming the parameter.
class ParamSet {
 public:
  ParamSet() = default;
  // Defaults from specs, then overrides; unknown names and bad values throw.
  ParamSet(const std::vector<ParamSpec>& specs, const std::map<std::string, double>& overrides,
           const std::string& familyId);

  double get(const std::string& name) const;
  long long getInt(const std::string& name) const;
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  const std::map<std::string, double>& values() const { return values_; }

 private:
  std::map<std::string, double> values_;
};

// Parses "NAME=VALUE" (as given to --set); throws InvalidArgument on a malformed pair.
std::pair<std::string, double> parseAssignment(const std::string& text);

// Throws InvalidArgument unless the kernel view's "head" is one of the family's "heads".
void requireShownHeadExists(const ParamSet& params, const std::string& familyId);

// Throws InvalidArgument("<name> = <value> is ...") unless value is finite and in [min, max].
void checkValue(const ParamSpec& spec, double value, const std::string& familyId);

}  // namespace poslab
