#include "io/json_input.h"

#include <algorithm>

#include "io/input_file.h"
#include "util/error.h"

namespace poslab {

namespace {

// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 4: syntax error
// ..." without the bracketed id and its position prefix (we give line and column ourselves).
std::string detailOf(const nlohmann::json::exception& e) {
  std::string what = e.what();
  const auto bracket = what.find("] ");
  if (bracket != std::string::npos) what = what.substr(bracket + 2);
  const auto colon = what.find(": ");
  if (what.rfind("parse error", 0) == 0 && colon != std::string::npos)
    what = what.substr(colon + 2);
  return what;
}

}  // namespace

std::string jsonDepthProblem(const std::string& text) {
  int depth = 0;
  bool inString = false, escaped = false;
  long long line = 1, column = 0;
  for (const char c : text) {
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
    }
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        return "nested deeper than " + std::to_string(kMaxJsonDepth) +
               " arrays and objects at line " + std::to_string(line) + ", column " +
               std::to_string(column);
    } else if (c == ']' || c == '}') {
      depth = std::max(0, depth - 1);
    }
  }
  return {};
}

nlohmann::json parseJsonText(const std::string& text, const std::string& source) {
  if (const std::string deep = jsonDepthProblem(text); !deep.empty())
    throw InvalidArgument(source + ": " + deep);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    const size_t offset = std::min(static_cast<size_t>(e.byte), text.size());
    const size_t upto = offset > 0 ? offset - 1 : 0;
    const std::string before = text.substr(0, upto);
    const long long line = std::count(before.begin(), before.end(), '\n') + 1;
    const size_t lastNewline = before.rfind('\n');
    const long long column =
        static_cast<long long>(lastNewline == std::string::npos ? upto + 1 : upto - lastNewline);
    throw InvalidArgument(source + ": not valid JSON at line " + std::to_string(line) +
                          ", column " + std::to_string(column) + " (" + detailOf(e) + ")");
  } catch (const nlohmann::json::exception& e) {
    // out_of_range 406: a number literal that overflows a double.
    throw InvalidArgument(source + ": not valid JSON (" + detailOf(e) + ")");
  }
}

nlohmann::json readJsonFile(const std::string& path, const std::string& what) {
  const std::string text = readInputFile(path, what, kMaxJsonInputBytes);
  return parseJsonText(text, what + " '" + path + "'");
}

}  // namespace poslab
