// The formula markup's parser and typesetter (ui/math, docs/MATH.md 0.7): the tree it reads, that
// no string breaks it, and that the picture has the shape of mathematics (raised superscripts,
// fractions built up). Every family's typeset formula is saved for looking at.
#include <QDir>
#include <QPainter>
#include <QRandomGenerator>
#include <QtTest>

#include "bridge/catalog.h"
#include "math/formula_markup.h"
#include "math/formula_render.h"
#include "math/formula_unicode.h"
#include "math/prose_markup.h"

using namespace poslab::ui;

namespace {

// Rows of the image that hold any ink (alpha > 0): [first, last], or {-1, -1}.
std::pair<int, int> inkRows(const QImage& img) {
  int first = -1, last = -1;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x)
      if (qAlpha(img.pixel(x, y)) > 0) {
        if (first < 0) first = y;
        last = y;
        break;
      }
  return {first, last};
}

FormulaStyle style() {
  FormulaStyle s;
  s.font = QFont(QStringLiteral("DejaVu Sans"));
  s.font.setPointSizeF(14);
  return s;
}

}  // namespace

class FormulaRenderTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void parsesScriptsOntoTheLastCharacter() {
    auto t = parseFormula(QStringLiteral("ab_c^{de} q̄_c"));
    QCOMPARE(formulaCanonical(*t), QStringLiteral("ab_{c}^{de} q̄_{c}"));
    QCOMPARE(t->children.size(), size_t(4));  // "a", b_c^{de}, " ", q̄_c
    QCOMPARE(t->children[1]->kind, FormulaNode::Kind::Scripted);
    QCOMPARE(t->children[1]->children[0]->text, QStringLiteral("b"));
    QCOMPARE(t->children[3]->children[0]->text, QStringLiteral("q̄"));  // with its combining bar
  }

  void parsesFractionsAndGroups() {
    auto t = parseFormula(QStringLiteral("τ = \\frac{d}{1 + d/L} {(x)}^2"));
    QCOMPARE(formulaCanonical(*t), QStringLiteral("τ = \\frac{d}{1 + d/L} {(x)}^{2}"));
    QCOMPARE(t->children[1]->kind, FormulaNode::Kind::Fraction);
  }

  void canonicalFormRoundTrips() {
    for (const auto& f : familyCatalog()) {
      auto once = parseFormula(QString::fromStdString(f.formula));
      const QString c = formulaCanonical(*once);
      QCOMPARE(formulaCanonical(*parseFormula(c)), c);
    }
  }

  // Unclosed braces, dangling marks, deep nesting and random bytes: a tree, all text kept.
  void anyStringGivesATree() {
    for (const QString s : {QStringLiteral("x^"), QStringLiteral("_"), QStringLiteral("{a"),
                            QStringLiteral("a}"), QStringLiteral("\\frac{a}"),
                            QStringLiteral("\\frac"), QString(5000, '{'), QString(5000, '^')}) {
      auto t = parseFormula(s);
      QVERIFY(t != nullptr);
      QVERIFY(!renderFormula(s, style()).isNull());
    }
    QRandomGenerator rng(7);
    const QString alphabet = QStringLiteral("ab_^{}\\frac λ̄");
    for (int n = 0; n < 500; ++n) {
      QString s;
      for (int i = 0; i < 30; ++i) s += alphabet[rng.bounded(alphabet.size())];
      QVERIFY(parseFormula(s) != nullptr);
      (void)formulaSize(s, style());
    }
  }

  // A superscript's ink reaches above the letter's; a fraction is taller than the same terms on
  // one line and is drawn with its rule between numerator and denominator.
  void picturesHaveTheShapeOfMathematics() {
    const auto plain = inkRows(renderFormula(QStringLiteral("ed"), style()));
    const auto raised = inkRows(renderFormula(QStringLiteral("e^d"), style()));
    QVERIFY2(raised.first < plain.first, "the superscript is not raised");
    const QImage inline_ = renderFormula(QStringLiteral("d/(1 + d)"), style());
    const QImage built = renderFormula(QStringLiteral("\\frac{d}{1 + d}"), style());
    QVERIFY(built.height() > 1.5 * inline_.height());
    QVERIFY(built.width() < inline_.width());
    const QImage hidpi = [] {
      FormulaStyle s = style();
      s.devicePixelRatio = 2;
      return renderFormula(QStringLiteral("\\frac{d}{1 + d}"), s);
    }();
    QCOMPARE(hidpi.deviceIndependentSize().toSize(), built.size());
  }

  // Lines break before top-level + and −, each within the width, and together they are the
  // whole formula; nothing inside parentheses or braces is cut.
  void longFormulasBreakIntoLinesThatFit() {
    const QString f = QStringLiteral(
        "b(d) = g_{FJ} Σ_r \\frac{(d/L)^r}{r!} e^{−κd/L} − g_{aff}·ρ(d) + g_{LC} (a + b + c) − x");
    const qreal full = formulaSize(f, style()).width();
    const QStringList lines = breakFormula(f, style(), full * 0.45);
    QVERIFY(lines.size() >= 3);
    for (const QString& l : lines)
      QVERIFY2(formulaSize(l, style()).width() <= full * 0.45, qPrintable(l));
    QCOMPARE(lines.join(' '), f);
    QVERIFY(lines.filter(QStringLiteral("(a + b + c)")).size() == 1);
    QCOMPARE(breakFormula(f, style(), full + 1), QStringList{f});
    // A single term wider than the line stays whole.
    QCOMPARE(breakFormula(QStringLiteral("abcdefgh"), style(), 5), QStringList{"abcdefgh"});
  }

  // Plot text: scripts as Unicode script characters where each has one; otherwise after the
  // mark, whole when one word (g_FJ), parenthesised when not; fractions on one line.
  void formulasAsUnicodeLines() {
    QCOMPARE(formulaToUnicode(QStringLiteral("d e^{−γd} cos ωd")), QStringLiteral("d e⁻ᵞᵈ cos ωd"));
    QCOMPARE(formulaToUnicode(QStringLiteral("FJ_{2}: (d/L)^{2}")), QStringLiteral("FJ₂: (d/L)²"));
    QCOMPARE(formulaToUnicode(QStringLiteral("log_{10} ‖q′‖")), QStringLiteral("log₁₀ ‖q′‖"));
    QCOMPARE(formulaToUnicode(QStringLiteral("g_{FJ} + g_{aff}")), QStringLiteral("g_FJ + g_aff"));
    QCOMPARE(formulaToUnicode(QStringLiteral("e^{−κd/L}")), QStringLiteral("e^(−κd/L)"));
    QCOMPARE(formulaToUnicode(QStringLiteral("\\frac{d}{1 + d/L}")), QStringLiteral("d/(1 + d/L)"));
  }

  // Lesson prose, cut by core's splitProse: paragraphs at blank lines, formulas typeset (rich
  // text) or in Unicode (plain text), \$ a dollar sign, an unclosed $ kept as written.
  void proseKeepsItsFormulasAndDollarSigns() {
    const QString text = QStringLiteral("costs \\$5, $x_{b}$\n\nthen $e^{−γd}$ and an unclosed $y");
    QCOMPARE(proseToHtml(text),
             QStringLiteral("<p>costs $5, x<sub>b</sub></p><p>then e<sup>−γd</sup> and an "
                            "unclosed $y</p>"));
    QCOMPARE(proseToPlainText(text), QStringLiteral("costs $5, x_b\nthen e⁻ᵞᵈ and an unclosed $y"));
    QCOMPARE(proseToHtml(QStringLiteral("a < b $$")), QStringLiteral("<p>a &lt; b </p>"));
  }

  // Every family's formula, one per row, saved for looking at (FORMULA_SHOTS or the temp dir).
  void everyFamilyFormulaRenders() {
    std::vector<QImage> rows;
    int width = 0, height = 0;
    for (const auto& f : familyCatalog()) {
      QImage img = renderFormula(QString::fromStdString(f.formula), style());
      QVERIFY2(!img.isNull() && img.width() > 40, f.id.c_str());
      width = std::max(width, img.width());
      height += img.height() + 6;
      rows.push_back(std::move(img));
    }
    QImage sheet(width + 12, height + 12, QImage::Format_ARGB32);
    sheet.fill(Qt::white);
    QPainter p(&sheet);
    int y = 6;
    for (const QImage& img : rows) {
      p.drawImage(6, y, img);
      y += img.height() + 6;
    }
    p.end();
    const QString dir = qEnvironmentVariable("FORMULA_SHOTS", QDir::tempPath());
    QVERIFY(sheet.save(dir + "/poslab-formulas.png"));
  }
};

QTEST_MAIN(FormulaRenderTest)
#include "test_formula_render.moc"
