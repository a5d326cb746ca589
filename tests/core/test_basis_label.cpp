// Basis functions shown as mathematics (issue #16 section 3): every basis name every family's
// kernel view writes has a formula label (a coverage guard: a new name outside the grammar fails
// here), and the labels say what MATH 1 says the functions are.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "encodings/basis_label.h"
#include "encodings/encoding.h"
#include "encodings/registry.h"

namespace poslab {
namespace {

TEST(BasisLabel, LabelsTheFunctionsOfMath1) {
  const std::map<std::string, std::string> expected = {
      {"1", "1"},
      {"cos", "cos ωd"},
      {"exp*cos", "e^{−γd} cos ωd"},                  // damped RoPE, MATH 1.5
      {"d*exp*cos", "d e^{−γd} cos ωd"},              // Jordan exact, MATH 1.7.1
      {"tau*exp*sin", "τ(d) e^{−γd} sin ωd"},         // stabilized, MATH 1.7.5
      {"(d)^2*exp*cos", "d^2 e^{−γd} cos ωd"},        // order 3, MATH 1.7.8
      {"(d/L)^3*exp*sin", "(d/L)^3 e^{−γd} sin ωd"},  // pj-rotary, MATH 1.8.3
      {"d/L*exp*cos", "d/L e^{−γd} cos ωd"},          // scaled, MATH 1.7.7
      {"cos_3", "cos θ_{3}d"},                        // RoPE pair 3, MATH 1.2
      {"exp*sin_12", "e^{−γ_{12}d} sin θ_{12}d"},     // xPos-like decayed pairs
      {"d/L", "d/L"},                                 // direct sum, MATH 1.6
      {"exp", "e^{−γd}"},
      {"tau*exp", "τ(d) e^{−γd}"},  // direct sum's Jordan half at ω = 0, MATH 1.6
      {"(tau/L)*exp", "(τ(d)/L) e^{−γd}"},
      {"tau/L*exp*cos", "τ(d)/L e^{−γd} cos ωd"},  // jet mix, MATH 1.7.9
      {"(tau/L)^2*exp*sin", "(τ(d)/L)^2 e^{−γd} sin ωd"},
      {"FJ2_cos", "FJ_{2}: (d/L)^{2} e^{−κd/L} cos ωd"},  // PJ, MATH 1.8.2
      {"LC0_sin", "LC_{0}: β_L^{0} sin ωφ_L"},
      {"affine", "−ρ(d)"},
      {"bias_h3", "−m_{3} d"},     // ALiBi, MATH 1.3
      {"affine:cos", "affine 1"},  // pj-rotary affine blocks at ω = 0
      {"affine:(d/L)^2*cos", "affine (d/L)^2"},
      {"no such name", "no such name"},
  };
  for (const auto& [name, label] : expected) EXPECT_EQ(basisLabel(name), label) << name;
}

// Every family's kernel view at its defaults (and pj-rotary with affine blocks): each name gets a
// label of its own (only "1" and "d/L" are their own label).
TEST(BasisLabel, EveryFamilysBasisHasALabel) {
  const std::vector<double> lags = {0, 1, 2, 3};
  auto check = [&](const std::string& id, const std::map<std::string, double>& values) {
    const LagBasis b = makeEncoding(id, values)->basis(lags);
    ASSERT_FALSE(b.names.empty()) << id;
    for (const std::string& n : b.names)
      if (n != "1" && n != "d/L") EXPECT_NE(basisLabel(n), n) << id << ": " << n;
  };
  for (const FamilyInfo* info : allFamilies()) check(info->id, {});
  check("pj-rotary", {{"affine_blocks", 1}});
}

}  // namespace
}  // namespace poslab
