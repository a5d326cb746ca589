// The one prose splitter (util/prose_segments.h) behind the CLI's lesson text and the GUI's:
// formulas between dollar signs, \$ a dollar sign, an unclosed $ literal, UTF-8 never cut.
#include <gtest/gtest.h>

#include "util/prose_segments.h"

namespace poslab {
namespace {

// "text|m" for a formula, "text|p" for prose: one string that a failure prints whole.
std::string shape(const std::vector<ProseSegment>& segments) {
  std::string out;
  for (const ProseSegment& s : segments) out += "[" + s.text + (s.isMath ? "|m]" : "|p]");
  return out;
}

TEST(ProseSegments, FormulasBetweenDollarSigns) {
  EXPECT_EQ(shape(splitProse("the kernel $e^{−γd} cos ωd$ decays")),
            "[the kernel |p][e^{−γd} cos ωd|m][ decays|p]");
  EXPECT_EQ(shape(splitProse("$a$$b$")), "[a|m][b|m]");
  EXPECT_EQ(shape(splitProse("plain")), "[plain|p]");
}

TEST(ProseSegments, EmptyRunsAreLeftOut) {
  EXPECT_TRUE(splitProse("").empty());
  EXPECT_TRUE(splitProse("$$").empty());
  EXPECT_EQ(shape(splitProse("$x$ and")), "[x|m][ and|p]");
}

TEST(ProseSegments, EscapedDollarIsADollarSign) {
  EXPECT_EQ(shape(splitProse("costs \\$5, $x_{b}$")), "[costs $5, |p][x_{b}|m]");
  EXPECT_EQ(shape(splitProse("$a \\$ b$")), "[a $ b|m]");
  EXPECT_EQ(shape(splitProse("a back\\slash")), "[a back\\slash|p]");
}

TEST(ProseSegments, AnUnclosedDollarIsLiteralProse) {
  EXPECT_EQ(shape(splitProse("an unclosed $x_{b}")), "[an unclosed |p][$x_{b}|p]");
  EXPECT_EQ(shape(splitProse("ends in $")), "[ends in |p][$|p]");
  EXPECT_EQ(shape(splitProse("$a$ then $b")), "[a|m][ then |p][$b|p]");
}

// Multi-byte characters next to the marks stay whole: the bytes come back unchanged.
TEST(ProseSegments, Utf8TextIsNotCut) {
  const std::string text = "γ$ω₃$‖q‖";
  const auto segments = splitProse(text);
  ASSERT_EQ(segments.size(), 3u);
  EXPECT_EQ(segments[0].text, "γ");
  EXPECT_EQ(segments[1].text, "ω₃");
  EXPECT_TRUE(segments[1].isMath);
  EXPECT_EQ(segments[2].text, "‖q‖");
}

}  // namespace
}  // namespace poslab
