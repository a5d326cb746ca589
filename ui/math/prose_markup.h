// Lesson texts: plain prose with formulas between dollar signs ("the kernel $e^{−γd} cos ωd$
// decays"), written in the formula markup of formula_markup.h. A blank line starts a new
// paragraph. Each paragraph is cut into prose and formulas by core's splitProse
// (util/prose_segments.h: \$ is a dollar sign, an unclosed $ a literal one).
#pragma once

#include <QString>

namespace poslab::ui {

// Qt rich text: paragraphs as <p>, prose escaped, each formula as formulaToHtml.
QString proseToHtml(const QString& text);

// One line per paragraph, formulas as formulaToUnicode (captions drawn as plain text, tests).
QString proseToPlainText(const QString& text);

}  // namespace poslab::ui
