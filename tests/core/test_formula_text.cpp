// The CLI's one-line text of the formula markup (docs/MATH.md 0.7).
#include <gtest/gtest.h>

#include "encodings/registry.h"
#include "util/formula_text.h"

namespace poslab {
namespace {

TEST(FormulaText, FractionsBecomeSlashesWithParenthesesAroundSums) {
  EXPECT_EQ(formulaAsPlainText("τ(d) = \\frac{d}{1 + d/L}"), "τ(d) = d/(1 + d/L)");
  EXPECT_EQ(formulaAsPlainText("\\frac{(ηd)^r}{r!} N^r"), "(ηd)^r/r! N^r");
  EXPECT_EQ(formulaAsPlainText("\\frac{\\frac{a}{b}}{c}"), "a/b/c");
}

TEST(FormulaText, OneCharacterScriptsLoseTheirBraces) {
  EXPECT_EQ(formulaAsPlainText("x_{b} e^{λd} g_{FJ} θ_{c}"), "x_b e^{λd} g_{FJ} θ_c");
  EXPECT_EQ(formulaAsPlainText("a\\_b \\{c\\}"), "a_b {c}");
}

TEST(FormulaText, MalformedMarkupIsCopiedNotLost) {
  EXPECT_EQ(formulaAsPlainText("\\frac{a}"), "\\frac{a}");
  EXPECT_EQ(formulaAsPlainText("x^{unclosed"), "x^{unclosed");
  EXPECT_EQ(formulaAsPlainText(std::string(100, '{')), std::string(100, '{'));
  EXPECT_EQ(formulaAsPlainText("trailing\\"), "trailing\\");
}

// No family's formula keeps a fraction mark or a backslash in the terminal text.
TEST(FormulaText, EveryFamilyFormulaReadsAsPlainText) {
  for (const FamilyInfo* f : allFamilies()) {
    const std::string text = formulaAsPlainText(f->formula);
    EXPECT_EQ(text.find('\\'), std::string::npos) << f->id << ": " << text;
    EXPECT_FALSE(text.empty()) << f->id;
  }
}

}  // namespace
}  // namespace poslab
