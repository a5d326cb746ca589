// One table per config struct: each row names a JSON key, the member that holds it, the values it
// may take and what it means. The same table writes the struct (writeJsonFields), reads it back
// strictly (readJsonFields: an unknown key, a wrong type or a value outside the row's limits is an
// InvalidArgument naming the source, the key path and what is allowed) and checks a struct built
// in code (checkJsonFields), so a key is typed once and its limits live in one place.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace poslab {

// Where a JSON value is, for messages: the input ("preset file 'x.json'"; empty: none) and the key
// path inside it ("config.model.d_model", "variants[1].kernel").
struct JsonPath {
  std::string source;
  std::string path;

  JsonPath key(const std::string& k) const { return {source, path.empty() ? k : path + "." + k}; }
  JsonPath index(size_t i) const { return {source, path + "[" + std::to_string(i) + "]"}; }
  // Throws InvalidArgument("SOURCE: field 'PATH' WHAT", hint).
  [[noreturn]] void fail(const std::string& what, const std::string& hint = {}) const;
};

// A short rendering of a JSON value for messages: 7, "abc", an object, an array.
std::string shownJson(const nlohmann::json& v);

// What a value may be. Numbers (and the elements of number lists) lie in [min, max]; strings (and
// the elements of string lists) are one of `allowed` when it is not empty.
struct JsonLimits {
  double min = -std::numeric_limits<double>::max();
  double max = std::numeric_limits<double>::max();
  std::vector<std::string> allowed;
};
inline JsonLimits inRange(double lo, double hi) {
  return {lo, hi, {}};
}
inline JsonLimits oneOf(std::vector<std::string> values) {
  return {-std::numeric_limits<double>::max(), std::numeric_limits<double>::max(),
          std::move(values)};
}
inline JsonLimits anyValue() {
  return {};
}

// The JSON forms of the member types: bool (true or false), double (any number), long long (a
// whole number), uint64_t (a non-negative whole number), string, list of whole numbers, list of
// strings, and an object of numbers by name.
void readJsonValue(const nlohmann::json& j, const JsonPath& at, const JsonLimits& l, bool& out);
void readJsonValue(const nlohmann::json& j, const JsonPath& at, const JsonLimits& l, double& out);
void readJsonValue(const nlohmann::json& j, const JsonPath& at, const JsonLimits& l,
                   long long& out);
void readJsonValue(const nlohmann::json& j, const JsonPath& at, const JsonLimits& l, uint64_t& out);
void readJsonValue(const nlohmann::json& j, const JsonPath& at, const JsonLimits& l,
                   std::string& out);
void readJsonValue(const nlohmann::json& j, const JsonPath& at, const JsonLimits& l,
                   std::vector<long long>& out);
void readJsonValue(const nlohmann::json& j, const JsonPath& at, const JsonLimits& l,
                   std::vector<std::string>& out);
void readJsonValue(const nlohmann::json& j, const JsonPath& at, const JsonLimits& l,
                   std::map<std::string, double>& out);
// The same limits on a value held in memory (what readJsonValue checks after the type).
void checkJsonValue(bool v, const JsonPath& at, const JsonLimits& l);
void checkJsonValue(double v, const JsonPath& at, const JsonLimits& l);
void checkJsonValue(long long v, const JsonPath& at, const JsonLimits& l);
void checkJsonValue(uint64_t v, const JsonPath& at, const JsonLimits& l);
void checkJsonValue(const std::string& v, const JsonPath& at, const JsonLimits& l);
void checkJsonValue(const std::vector<long long>& v, const JsonPath& at, const JsonLimits& l);
void checkJsonValue(const std::vector<std::string>& v, const JsonPath& at, const JsonLimits& l);
void checkJsonValue(const std::map<std::string, double>& v, const JsonPath& at,
                    const JsonLimits& l);

// Fails unless `j` is an object whose keys are all in `known` (the message lists them).
void checkJsonObject(const nlohmann::json& j, const JsonPath& at,
                     const std::vector<std::string>& known);

template <class S>
struct JsonField {
  using Member = std::variant<bool S::*, double S::*, long long S::*, uint64_t S::*,
                              std::string S::*, std::vector<long long> S::*,
                              std::vector<std::string> S::*, std::map<std::string, double> S::*>;
  const char* key;      // JSON key, snake_case
  Member member;        // where it lives in S
  JsonLimits limits;    // what it may be
  const char* comment;  // meaning and unit (docs/SESSIONS.md lists them)
};

template <class S>
std::vector<std::string> jsonFieldKeys(const std::vector<JsonField<S>>& table) {
  std::vector<std::string> keys;
  for (const auto& f : table) keys.push_back(f.key);
  return keys;
}

template <class S>
nlohmann::json writeJsonFields(const S& s, const std::vector<JsonField<S>>& table) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& f : table) std::visit([&](auto member) { j[f.key] = s.*member; }, f.member);
  return j;
}

// Reads the keys `j` has into `out` (a missing key keeps out's value). Strict, see above.
template <class S>
void readJsonFields(const nlohmann::json& j, const JsonPath& at,
                    const std::vector<JsonField<S>>& table, S& out) {
  checkJsonObject(j, at, jsonFieldKeys(table));
  for (const auto& f : table) {
    auto it = j.find(f.key);
    if (it == j.end()) continue;
    std::visit([&](auto member) { readJsonValue(*it, at.key(f.key), f.limits, out.*member); },
               f.member);
  }
}

// The row of `table` that holds `member`: its key and limits for a front end that shows the
// member (the training form's ranges, ui/training/training_setup.cpp). Throws std::logic_error
// for a member the table does not list (a programming error, not an input's).
template <class S, class M>
const JsonField<S>& jsonFieldOf(const std::vector<JsonField<S>>& table, M S::*member) {
  for (const auto& f : table) {
    const auto* m = std::get_if<M S::*>(&f.member);
    if (m && *m == member) return f;
  }
  throw std::logic_error("jsonFieldOf: the key table has no row for this member");
}

template <class S>
void checkJsonFields(const S& s, const JsonPath& at, const std::vector<JsonField<S>>& table) {
  for (const auto& f : table)
    std::visit([&](auto member) { checkJsonValue(s.*member, at.key(f.key), f.limits); }, f.member);
}

}  // namespace poslab
