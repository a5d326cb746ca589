// Prose with formulas between dollar signs, as lesson texts write it (docs/MATH.md 0.7): "the
// kernel $e^{−γd} cos ωd$ decays" cut into its prose and formula runs. The one splitter behind
// the CLI's plain text (util/formula_text.h) and the GUI's rich text (ui/math/prose_markup.h).
#pragma once

#include <string>
#include <vector>

namespace poslab {

struct ProseSegment {
  std::string text;     // UTF-8; a formula without its dollar signs, in the formula markup
  bool isMath = false;  // true: text was between $ and $
};

// The runs of `text` in order, empty runs left out. \$ is a dollar sign (in prose and formulas
// alike); an unclosed $ is a literal dollar sign and what follows it is prose. Only the ASCII
// bytes '$' and '\' are looked at, so UTF-8 characters are never cut.
std::vector<ProseSegment> splitProse(const std::string& text);

}  // namespace poslab
