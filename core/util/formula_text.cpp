#include "util/formula_text.h"

#include <cstddef>

#include "util/prose_segments.h"

namespace poslab {

namespace {

constexpr int kMaxDepth = 32;  // deeper nesting is copied as written

// Index just past the '}' matching the '{' at `open`, or npos.
size_t matchingBrace(const std::string& s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      ++i;
      continue;
    }
    if (s[i] == '{') ++depth;
    if (s[i] == '}' && --depth == 0) return i + 1;
  }
  return std::string::npos;
}

bool oneCharacter(const std::string& s) {
  if (s.empty()) return false;
  size_t n = 1;  // bytes of the first UTF-8 code point
  const auto lead = static_cast<unsigned char>(s[0]);
  if (lead >= 0xF0)
    n = 4;
  else if (lead >= 0xE0)
    n = 3;
  else if (lead >= 0xC0)
    n = 2;
  return s.size() == n;
}

bool hasSeveralTerms(const std::string& s) {
  return s.find(' ') != std::string::npos || s.find('+') != std::string::npos ||
         s.find("−") != std::string::npos || s.find('-') != std::string::npos;
}

std::string convert(const std::string& s, int depth) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (depth < kMaxDepth && s.compare(i, 6, "\\frac{") == 0) {
      const size_t numEnd = matchingBrace(s, i + 5);
      if (numEnd != std::string::npos && numEnd < s.size() && s[numEnd] == '{') {
        const size_t denEnd = matchingBrace(s, numEnd);
        if (denEnd != std::string::npos) {
          std::string num = convert(s.substr(i + 6, numEnd - i - 7), depth + 1);
          std::string den = convert(s.substr(numEnd + 1, denEnd - numEnd - 2), depth + 1);
          if (hasSeveralTerms(num)) num = "(" + num + ")";
          if (hasSeveralTerms(den)) den = "(" + den + ")";
          out += num + "/" + den;
          i = denEnd;
          continue;
        }
      }
    }
    if (s[i] == '\\' && i + 1 < s.size() &&
        std::string("{}_^\\").find(s[i + 1]) != std::string::npos) {
      out += s[i + 1];
      i += 2;
      continue;
    }
    if ((s[i] == '_' || s[i] == '^') && i + 1 < s.size() && s[i + 1] == '{' && depth < kMaxDepth) {
      const size_t end = matchingBrace(s, i + 1);
      if (end != std::string::npos) {
        const std::string inner = convert(s.substr(i + 2, end - i - 3), depth + 1);
        out += s[i];
        out += oneCharacter(inner) ? inner : "{" + inner + "}";
        i = end;
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

}  // namespace

std::string formulaAsPlainText(const std::string& markup) {
  return convert(markup, 0);
}

std::string proseAsPlainText(const std::string& text) {
  std::string out;
  for (const ProseSegment& s : splitProse(text))
    out += s.isMath ? formulaAsPlainText(s.text) : s.text;
  return out;
}

}  // namespace poslab
