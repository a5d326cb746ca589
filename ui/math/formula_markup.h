// The small formula language of PosLab's texts (family formulas, lesson captions) and its parse
// tree. A formula is Unicode text (Greek letters and operators as themselves) plus three marks:
//   x_b  x_{i,j}      subscript: one character, or a braced group
//   e^{λd}  d^2       superscript, the same way; x_b^2 puts both on x
//   \frac{d}{1 + d/L} a built-up fraction
// Braces group without printing; \{ \} \_ \^ \\ print the character itself. Anything else prints
// as written, so a formula stays readable where it is shown as plain text (the CLI).
#pragma once

#include <QString>

#include <memory>
#include <vector>

namespace poslab::ui {

struct FormulaNode {
  enum class Kind {
    Text,      // text: a run of characters on the baseline
    Group,     // children side by side
    Scripted,  // children[0] the base; sub and/or sup set (either may be null)
    Fraction,  // children[0] over children[1]
  };
  Kind kind = Kind::Group;
  QString text;  // Text only
  std::vector<std::unique_ptr<FormulaNode>> children;
  std::unique_ptr<FormulaNode> sub, sup;  // Scripted only
};

// Parses a formula; never throws. A mark without an argument, or an unclosed brace, is read as
// the literal character(s), so any string gives a tree that prints all of its text.
std::unique_ptr<FormulaNode> parseFormula(const QString& markup);

// The tree written back in canonical markup: every script and fraction argument braced
// (x_b -> x_{b}), literal marks escaped. parseFormula(formulaCanonical(t)) gives the same tree.
QString formulaCanonical(const FormulaNode& node);

// The tree as Qt rich text for one-line labels: <sub>, <sup>, fractions as a/b, text escaped.
QString formulaToHtml(const FormulaNode& node);

}  // namespace poslab::ui
