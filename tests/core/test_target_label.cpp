// Target kernels read as their K(d) (analysis/target_label.h), as docs/MATH.md 4.1, 3.2.1 and
// 3.4 write them: every probe and diagnostics target has a label, and no label shows a raw
// identifier (omega, x, phi_L) instead of the notation.
#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>

#include "analysis/kernel_probe.h"
#include "analysis/pj_adaptive.h"
#include "analysis/target_label.h"
#include "tasks/lag_kernels.h"
#include "tasks/sector_teacher.h"

namespace poslab {
namespace {

// Runs of two or more ASCII letters in `s` that are not function names of the notation.
std::string identifiers(const std::string& s) {
  static const std::set<std::string> words = {"cos", "sin", "asinh", "frac"};  // \frac: markup
  std::string out, run;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) {
      run += s[i];
      continue;
    }
    if (run.size() >= 2 && !words.count(run)) out += run + " ";
    run.clear();
  }
  return out;
}

void expectNotation(const std::string& name, const std::string& label) {
  EXPECT_NE(label, name);
  EXPECT_NE(label.find('d'), std::string::npos) << name << ": " << label;  // a function of d
  EXPECT_EQ(identifiers(label), "") << name << ": " << label;
}

TEST(TargetLabel, EveryProbeTargetReadsAsItsKernel) {
  for (const std::string& name : probeTargetNames()) expectNotation(name, probeTargetLabel(name));
}

TEST(TargetLabel, EveryDiagnosticsTargetAndTaskKernelReadsAsItsKernel) {
  for (const std::string& name : lagKernelNames()) expectNotation(name, taskKernelLabel(name));
  for (const std::string& name : pjAdaptiveTargetNames())
    expectNotation(name, taskKernelLabel(name));
  for (const std::string& name : sectorTeacherNames()) expectNotation(name, taskKernelLabel(name));
}

// MATH 4.1: the toy study's linear target is −x; MATH 4.2.5 (the PJ adaptive script): +x.
TEST(TargetLabel, LinearHasTheSignOfItsStudy) {
  EXPECT_EQ(probeTargetLabel("linear"), "−d/L");
  EXPECT_EQ(taskKernelLabel("linear"), "d/L");
  EXPECT_EQ(probeTargetLabel("mixed"), "(d/L) cos ωd");
}

TEST(TargetLabel, JetOrdersOneToSixteen) {
  EXPECT_EQ(probeTargetLabel("high_jet_r3"), "(d/L)^{3} cos ωd");
  EXPECT_EQ(taskKernelLabel("scaled_high_jet_r16"), "(d/L)^{16} e^{−c d/L} cos ωd");
  for (const char* bad : {"high_jet_r0", "high_jet_r17", "high_jet_r", "high_jet_rx", "nope"})
    EXPECT_EQ(probeTargetLabel(bad), bad);
}

}  // namespace
}  // namespace poslab
