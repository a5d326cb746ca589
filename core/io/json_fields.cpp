#include "io/json_fields.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "util/error.h"

namespace poslab {

namespace {

using nlohmann::json;

// The shortest decimal that reads back as v: 1e+06, 0.003, 1.2345678901234568e-05.
std::string number(double v) {
  std::ostringstream os;
  for (int precision = 6; precision <= 17; ++precision) {
    os.str({});
    os.precision(precision);
    os << v;
    if (!std::isfinite(v) || std::strtod(os.str().c_str(), nullptr) == v) break;
  }
  return os.str();
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// A bound as written in the tables: 1000000, not 1e+06.
std::string bound(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  return number(v);
}

std::string rangeText(const JsonLimits& l) {
  return "allowed [" + bound(l.min) + ", " + bound(l.max) + "]";
}

}  // namespace

void JsonPath::fail(const std::string& what, const std::string& hint) const {
  const std::string where = path.empty() ? "the document" : "field '" + path + "'";
  const std::string sep = !what.empty() && what[0] == ':' ? "" : " ";
  throw InvalidArgument((source.empty() ? "" : source + ": ") + where + sep + what, hint);
}

std::string shownJson(const json& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  std::string s = v.is_number_float() ? number(v.get<double>()) : v.dump();
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

void checkJsonValue(bool, const JsonPath&, const JsonLimits&) {}  // both values are allowed
void checkJsonValue(double v, const JsonPath& at, const JsonLimits& l) {
  // NaN and infinity are no number a range can hold: said so, not "out of [-1.8e308, 1.8e308]".
  if (!std::isfinite(v)) at.fail("= " + number(v) + " is not a finite number", "give a number");
  if (v < l.min || v > l.max) at.fail("= " + number(v) + " is out of range", rangeText(l));
}
void checkJsonValue(long long v, const JsonPath& at, const JsonLimits& l) {
  if (static_cast<double>(v) < l.min || static_cast<double>(v) > l.max)
    at.fail("= " + std::to_string(v) + " is out of range", rangeText(l));
}
void checkJsonValue(uint64_t v, const JsonPath& at, const JsonLimits& l) {
  if (static_cast<double>(v) < l.min || static_cast<double>(v) > l.max)
    at.fail("= " + std::to_string(v) + " is out of range", rangeText(l));
}
void checkJsonValue(const std::string& v, const JsonPath& at, const JsonLimits& l) {
  if (!l.allowed.empty() && std::find(l.allowed.begin(), l.allowed.end(), v) == l.allowed.end())
    at.fail("= \"" + v + "\" is not allowed", "one of " + joined(l.allowed));
}
void checkJsonValue(const std::vector<long long>& v, const JsonPath& at, const JsonLimits& l) {
  for (size_t i = 0; i < v.size(); ++i) checkJsonValue(v[i], at.index(i), l);
}
void checkJsonValue(const std::vector<std::string>& v, const JsonPath& at, const JsonLimits& l) {
  for (size_t i = 0; i < v.size(); ++i) checkJsonValue(v[i], at.index(i), l);
}
void checkJsonValue(const std::map<std::string, double>& v, const JsonPath& at,
                    const JsonLimits& l) {
  for (const auto& [k, x] : v) checkJsonValue(x, at.key(k), l);
}

void readJsonValue(const json& j, const JsonPath& at, const JsonLimits&, bool& out) {
  if (!j.is_boolean()) at.fail("must be true or false, not " + shownJson(j));
  out = j.get<bool>();
}

void readJsonValue(const json& j, const JsonPath& at, const JsonLimits& l, double& out) {
  if (!j.is_number()) at.fail("must be a number, not " + shownJson(j));
  const double v = j.get<double>();
  checkJsonValue(v, at, l);
  out = v;
}

// Whole numbers may be written as integers or as numbers without a fraction (1e3); a fraction
// (3.7), a boolean or text is refused.
void readJsonValue(const json& j, const JsonPath& at, const JsonLimits& l, long long& out) {
  if (j.is_number_float()) {
    const double d = j.get<double>();
    if (d != std::floor(d)) at.fail("must be a whole number, not " + shownJson(j));
    checkJsonValue(d, at, l);
    if (std::fabs(d) >= 9.2e18) at.fail("= " + number(d) + " is out of range", rangeText(l));
    out = static_cast<long long>(d);
    return;
  }
  if (!j.is_number_integer()) at.fail("must be a whole number, not " + shownJson(j));
  // A positive literal beyond 2^63 - 1 is held unsigned: out of any range a long long has.
  if (j.is_number_unsigned() &&
      j.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<long long>::max()))
    at.fail("= " + j.dump() + " is out of range", rangeText(l));
  const long long v = j.get<long long>();
  checkJsonValue(v, at, l);
  out = v;
}

void readJsonValue(const json& j, const JsonPath& at, const JsonLimits& l, uint64_t& out) {
  if (j.is_number_float()) {
    const double d = j.get<double>();
    if (d != std::floor(d)) at.fail("must be a whole number, not " + shownJson(j));
    if (d < 0) at.fail("= " + shownJson(j) + " must not be negative");
    if (d >= 1.8e19) at.fail("= " + shownJson(j) + " is out of range", "0 to 2^64-1");
    checkJsonValue(d, at, l);
    out = static_cast<uint64_t>(d);
    return;
  }
  if (!j.is_number_integer()) at.fail("must be a whole number, not " + shownJson(j));
  if (!j.is_number_unsigned()) at.fail("= " + j.dump() + " must not be negative");
  const uint64_t v = j.get<uint64_t>();
  checkJsonValue(v, at, l);
  out = v;
}

void readJsonValue(const json& j, const JsonPath& at, const JsonLimits& l, std::string& out) {
  if (!j.is_string()) at.fail("must be a string, not " + shownJson(j));
  const std::string v = j.get<std::string>();
  checkJsonValue(v, at, l);
  out = v;
}

void readJsonValue(const json& j, const JsonPath& at, const JsonLimits& l,
                   std::vector<long long>& out) {
  if (!j.is_array()) at.fail("must be a list of whole numbers, not " + shownJson(j));
  std::vector<long long> v(j.size());
  for (size_t i = 0; i < j.size(); ++i) readJsonValue(j[i], at.index(i), l, v[i]);
  out = v;
}

void readJsonValue(const json& j, const JsonPath& at, const JsonLimits& l,
                   std::vector<std::string>& out) {
  if (!j.is_array()) at.fail("must be a list of strings, not " + shownJson(j));
  std::vector<std::string> v(j.size());
  for (size_t i = 0; i < j.size(); ++i) readJsonValue(j[i], at.index(i), l, v[i]);
  out = v;
}

void readJsonValue(const json& j, const JsonPath& at, const JsonLimits& l,
                   std::map<std::string, double>& out) {
  if (!j.is_object()) at.fail("must be an object {name: number}, not " + shownJson(j));
  std::map<std::string, double> v;
  for (const auto& [k, x] : j.items()) readJsonValue(x, at.key(k), l, v[k]);
  out = v;
}

void checkJsonObject(const json& j, const JsonPath& at, const std::vector<std::string>& known) {
  if (!j.is_object()) {
    if (at.path.empty())
      throw InvalidArgument((at.source.empty() ? "the document" : at.source) +
                            " must hold a JSON object {...}, not " + shownJson(j));
    at.fail("must be a JSON object, not " + shownJson(j));
  }
  for (const auto& [k, v] : j.items())
    if (std::find(known.begin(), known.end(), k) == known.end())
      at.key(k).fail("is not a known field", "known here: " + joined(known));
}

}  // namespace poslab
