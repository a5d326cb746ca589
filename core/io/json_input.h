// Parsing JSON the user supplied (files, pasted state strings) into nlohmann::json with one kind
// of error: every failure, a syntax error or a number no double can hold (1e400), is an
// InvalidArgument that names the source and, for syntax errors, the line and column.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace poslab {

// `source` names the input in messages ("preset file 'x.json'", "the state string").
nlohmann::json parseJsonText(const std::string& text, const std::string& source);

// readInputFile(path, what, kMaxJsonInputBytes) then parseJsonText.
nlohmann::json readJsonFile(const std::string& path, const std::string& what);

}  // namespace poslab
