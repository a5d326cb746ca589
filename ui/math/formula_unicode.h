// A formula (formula_markup.h) as one line of plain Unicode, for places that draw plain text only:
// QCustomPlot's legends and axis titles. Scripts become Unicode super- and subscript characters
// where every character of the script has one (e^{−γd} -> e⁻ᵞᵈ, ω_3 -> ω₃); otherwise the script
// is written after a caret or underscore, as it is when it is one word of letters and digits
// (g_{FJ} -> g_FJ) and in parentheses when not (e^{−κd/L} -> e^(−κd/L)), so no text is lost.
// Fractions are written a/b, parenthesised where a part has more than one term.
#pragma once

#include <QString>

namespace poslab::ui {

QString formulaToUnicode(const QString& markup);

}  // namespace poslab::ui
