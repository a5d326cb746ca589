// Parsing JSON the user supplied (files, pasted state strings) into nlohmann::json with one kind
// of error: every failure, a syntax error or a number no double can hold (1e400), is an
// InvalidArgument that names the source and, for syntax errors, the line and column.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace poslab {

// The most nested arrays and objects a JSON input may have. PosLab's formats nest a few levels; a
// lesson nested 200,000 deep parsed, then overflowed the stack when it was copied (exit 139).
constexpr int kMaxJsonDepth = 64;

// Empty, or "nested deeper than 64 arrays and objects at line L, column C": where `text` (JSON,
// strings skipped) opens its array or object number kMaxJsonDepth + 1. Every parse of a user's
// JSON asks it first (parseJsonText does).
std::string jsonDepthProblem(const std::string& text);

// `source` names the input in messages ("preset file 'x.json'", "the state string").
nlohmann::json parseJsonText(const std::string& text, const std::string& source);

// readInputFile(path, what, kMaxJsonInputBytes) then parseJsonText.
nlohmann::json readJsonFile(const std::string& path, const std::string& what);

}  // namespace poslab
