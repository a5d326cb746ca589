// Typesets a formula (formula_markup.h) as mathematics: scripts smaller and raised or lowered,
// fractions built up over a rule, single Latin letters in italic as variables, function names
// (Re, cos, exp, ...) upright. Plain QPainter text and lines; no TeX installation, no browser.
#pragma once

#include <QColor>
#include <QFont>
#include <QImage>
#include <QSizeF>
#include <QString>
#include <QStringList>

namespace poslab::ui {

struct FormulaStyle {
  QFont font;                    // the base size and family of the formula's text
  QColor color = Qt::black;      // text and fraction rules
  qreal devicePixelRatio = 1.0;  // render at this many pixels per logical pixel (HiDPI)
};

// The formula's size in logical pixels at this style.
QSizeF formulaSize(const QString& markup, const FormulaStyle& style);

// The formula cut into lines no wider than maxWidth logical pixels where it can be: before a
// " + " or " − " outside every brace and parenthesis, greedily. Each line is markup again; a
// term wider than maxWidth stays whole on its own line.
QStringList breakFormula(const QString& markup, const FormulaStyle& style, qreal maxWidth);

// The typeset formula on a transparent background, formulaSize() logical pixels large (times the
// device pixel ratio in real pixels). An empty markup gives a null image.
QImage renderFormula(const QString& markup, const FormulaStyle& style);

}  // namespace poslab::ui
