// Formulas in PosLab's formula markup (Unicode plus x_b, x^{...} and \frac{a}{b}; the GUI
// typesets them, ui/math/formula_markup.h) written as one line of plain text for a terminal.
#pragma once

#include <string>

namespace poslab {

// \frac{a}{b} -> a/b, parenthesised where a or b has more than one term ((1 + d/L)); braces
// around a one-character script dropped (x_{b} -> x_b), others kept (e^{iθd}); escapes resolved.
std::string formulaAsPlainText(const std::string& markup);

// Prose with formulas between dollar signs (lesson texts, lessons/lesson.h), cut by splitProse
// (util/prose_segments.h): each formula as formulaAsPlainText, the prose as written.
std::string proseAsPlainText(const std::string& text);

}  // namespace poslab
