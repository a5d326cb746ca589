#include "math/formula_unicode.h"

#include <QHash>

#include "math/formula_markup.h"

namespace poslab::ui {

namespace {

// The characters with a Unicode superscript / subscript form that formulas use.
const QHash<QChar, QChar>& superscripts() {
  static const QHash<QChar, QChar> map = [] {
    QHash<QChar, QChar> m;
    const QString from = QStringLiteral("0123456789+-−=()nidrtkLγβθφ");
    const QString to = QStringLiteral("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿⁱᵈʳᵗᵏᴸᵞᵝᶿᵠ");
    for (int k = 0; k < from.size(); ++k) m.insert(from[k], to[k]);
    return m;
  }();
  return map;
}
const QHash<QChar, QChar>& subscripts() {
  static const QHash<QChar, QChar> map = [] {
    QHash<QChar, QChar> m;
    const QString from = QStringLiteral("0123456789+-−=()aehijklmnoprstuvxβγρφχ");
    const QString to = QStringLiteral("₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ");
    for (int k = 0; k < from.size(); ++k) m.insert(from[k], to[k]);
    return m;
  }();
  return map;
}

QString plain(const FormulaNode& node);

// The script in script characters, or empty when one of its characters has none.
QString scriptChars(const QString& text, const QHash<QChar, QChar>& map) {
  QString out;
  for (QChar c : text) {
    if (c == ' ') continue;  // "−γ d" reads the same raised
    auto it = map.find(c);
    if (it == map.end()) return {};
    out += *it;
  }
  return out;
}

// One word of letters and digits (g_{FJ}, n_{aff}): it reads whole after the mark.
bool isWord(const QString& s) {
  if (s.isEmpty()) return false;
  for (QChar c : s)
    if (!c.isLetterOrNumber()) return false;
  return true;
}

QString script(const FormulaNode& node, const QHash<QChar, QChar>& map, QChar mark) {
  const QString text = plain(node);
  const QString raised = scriptChars(text, map);
  if (!raised.isEmpty()) return raised;
  return isWord(text) ? QString(mark) + text : QString(mark) + "(" + text + ")";
}

bool hasSeveralTerms(const QString& s) {
  return s.contains(' ') || s.contains('+') || s.contains(QChar(0x2212));
}

QString plain(const FormulaNode& node) {
  switch (node.kind) {
    case FormulaNode::Kind::Text:
      return node.text;
    case FormulaNode::Kind::Group: {
      QString out;
      for (const auto& c : node.children) out += plain(*c);
      return out;
    }
    case FormulaNode::Kind::Scripted: {
      QString out = plain(*node.children[0]);
      if (node.sub) out += script(*node.sub, subscripts(), '_');
      if (node.sup) out += script(*node.sup, superscripts(), '^');
      return out;
    }
    case FormulaNode::Kind::Fraction: {
      QString a = plain(*node.children[0]), b = plain(*node.children[1]);
      if (hasSeveralTerms(a)) a = "(" + a + ")";
      if (hasSeveralTerms(b)) b = "(" + b + ")";
      return a + "/" + b;
    }
  }
  return {};
}

}  // namespace

QString formulaToUnicode(const QString& markup) {
  return plain(*parseFormula(markup));
}

}  // namespace poslab::ui
