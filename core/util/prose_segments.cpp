#include "util/prose_segments.h"

namespace poslab {

std::vector<ProseSegment> splitProse(const std::string& text) {
  std::vector<ProseSegment> out;
  std::string run;
  bool inFormula = false;
  auto flush = [&] {
    if (!run.empty()) out.push_back({run, inFormula});
    run.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '$') {
      run += '$';
      ++i;
    } else if (text[i] == '$') {
      flush();
      inFormula = !inFormula;
    } else {
      run += text[i];
    }
  }
  if (inFormula) {  // unclosed: the dollar sign and what follows are prose
    run = "$" + run;
    inFormula = false;
  }
  flush();
  return out;
}

}  // namespace poslab
