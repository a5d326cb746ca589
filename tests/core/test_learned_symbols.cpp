// The learned position parameters a trained model reports (Snapshot::position, docs/MATH.md 2.3)
// read as mathematics wherever they are shown (the GUI's parameter-over-time plot): each name
// every family's module reports has a symbol, so a new parameter without one fails here.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "encodings/params.h"
#include "encodings/registry.h"
#include "model/position_module.h"

namespace poslab {
namespace {

// Names that are words in the formulas themselves (MATH 1.8.2: Aff(d) = −slope · ρ(d)).
const std::set<std::string> kWords = {"slope"};

TEST(LearnedParamSymbol, EveryReportedParameterHasASymbol) {
  std::set<std::string> seen;
  for (const FamilyInfo* f : allFamilies()) {
    ModelConfig cfg;
    cfg.family = f->id;
    cfg.heads = 2;
    cfg.dModel = 2 * 48;  // head size 48: whole blocks of order 2, 3 and 4 (4, 6, 8 reals)
    PositionModule module(cfg, /*trainLength=*/32);
    for (const auto& [name, values] : module->snapshot()) {
      seen.insert(name);
      const std::string symbol = learnedParamSymbol(name);
      if (!kWords.count(name)) EXPECT_NE(symbol, name) << f->id << ": " << name;
      EXPECT_EQ(symbol.find("gamma"), std::string::npos) << name;
    }
  }
  // The parameters of the Jordan, PJ-bias and PoPE families are among them.
  for (const char* name : {"gamma", "eta", "gate_FJ", "mass_LC0", "delta_mean"})
    EXPECT_TRUE(seen.count(name)) << name;
}

TEST(LearnedParamSymbol, SymbolsFromTheMathReference) {
  EXPECT_EQ(learnedParamSymbol("gamma"), "γ");
  EXPECT_EQ(learnedParamSymbol("eta"), "η");
  EXPECT_EQ(learnedParamSymbol("kappa"), "κ");
  EXPECT_EQ(learnedParamSymbol("gate_affine"), "g_{aff}");
  EXPECT_EQ(learnedParamSymbol("gate_LC"), "g_{LC}");
  EXPECT_EQ(learnedParamSymbol("mass_FJ12"), "M(FJ, 12)");
  EXPECT_EQ(learnedParamSymbol("mass_affine"), "M(affine)");
  EXPECT_EQ(learnedParamSymbol("jet2"), "c_{2}");  // the jet-mix coefficient c_r
  EXPECT_EQ(learnedParamSymbol("jet_max"), "jet_max");
  EXPECT_EQ(learnedParamSymbol("mass_FJ"), "mass_FJ");  // no order: not a mass
  EXPECT_EQ(learnedParamSymbol("mass_FJx"), "mass_FJx");
  EXPECT_EQ(learnedParamSymbol("no_such"), "no_such");
}

}  // namespace
}  // namespace poslab
