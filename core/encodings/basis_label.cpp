#include "encodings/basis_label.h"

#include <cctype>

namespace poslab {

namespace {

bool startsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

bool allDigits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// The shear time of a Jordan basis name ("d", "tau", "d/L") as markup.
std::string timeLabel(const std::string& t, bool powered) {
  if (t == "tau") return "τ(d)";
  if (t == "tau/L") return powered ? "(τ(d)/L)" : "τ(d)/L";
  if (t == "d/L") return powered ? "(d/L)" : "d/L";
  return t;
}

// "[T*|(T)^r*][exp*](cos|sin)[_c]": a rotary basis function, or "" when `name` is not one.
// withPhase false: the phase is e^{i·0·d} = 1 (pj-rotary's affine blocks), so cos is dropped.
std::string rotaryLabel(std::string name, bool withPhase) {
  std::string time;
  if (startsWith(name, "(")) {
    const size_t close = name.find(")^");
    const size_t star = name.find('*', close == std::string::npos ? 0 : close);
    if (close == std::string::npos || star == std::string::npos) return {};
    const std::string power = name.substr(close + 2, star - close - 2);
    if (!allDigits(power)) return {};
    time = timeLabel(name.substr(1, close - 1), true) + "^" + power;
    name = name.substr(star + 1);
  } else {
    for (const char* t : {"tau/L*", "d/L*", "tau*", "d*"})
      if (startsWith(name, t)) {
        const std::string bare(t, std::char_traits<char>::length(t) - 1);
        time = timeLabel(bare, false);
        name = name.substr(bare.size() + 1);
        break;
      }
  }
  if (name == "exp") return time.empty() ? std::string{} : time + " e^{−γd}";  // no phase (ω = 0)
  std::string decay;
  if (startsWith(name, "exp*")) {
    decay = "e^{−γd}";
    name = name.substr(4);
  }
  std::string wave;
  if (name == "cos" || name == "sin") {
    wave = name + " ωd";
  } else if ((startsWith(name, "cos_") || startsWith(name, "sin_")) && allDigits(name.substr(4))) {
    wave = name.substr(0, 3) + " θ_{" + name.substr(4) + "}d";
    if (!decay.empty()) decay = "e^{−γ_{" + name.substr(4) + "}d}";
  } else {
    return {};
  }
  if (!withPhase) {
    if (startsWith(wave, "sin")) return {};
    wave.clear();
  }
  std::string out;
  for (const std::string& part : {time, decay, wave})
    if (!part.empty()) out += (out.empty() ? "" : " ") + part;
  return out.empty() ? "1" : out;
}

// "FJ2_cos", "LC0_sin": the PJ sectors' basis functions, or "".
std::string pjLabel(const std::string& name) {
  for (const char* sector : {"FJ", "LC"}) {
    if (!startsWith(name, sector)) continue;
    const size_t bar = name.find('_');
    if (bar == std::string::npos) return {};
    const std::string order = name.substr(2, bar - 2), wave = name.substr(bar + 1);
    if (!allDigits(order) || (wave != "cos" && wave != "sin")) return {};
    if (std::string(sector) == "FJ")
      return "FJ_{" + order + "}: (d/L)^{" + order + "} e^{−κd/L} " + wave + " ωd";
    return "LC_{" + order + "}: β_L^{" + order + "} " + wave + " ωφ_L";
  }
  return {};
}

}  // namespace

std::string basisLabel(const std::string& name) {
  if (name == "1") return "1";
  if (name == "d/L") return "d/L";
  if (name == "exp") return "e^{−γd}";
  if (name == "(tau/L)*exp") return "(τ(d)/L) e^{−γd}";
  if (name == "affine") return "−ρ(d)";
  if (startsWith(name, "bias_h") && allDigits(name.substr(6)))
    return "−m_{" + name.substr(6) + "} d";
  if (startsWith(name, "affine:")) {
    const std::string label = rotaryLabel(name.substr(7), /*withPhase=*/false);
    return label.empty() ? name : "affine " + label;
  }
  if (std::string label = pjLabel(name); !label.empty()) return label;
  if (std::string label = rotaryLabel(name, /*withPhase=*/true); !label.empty()) return label;
  return name;
}

}  // namespace poslab
