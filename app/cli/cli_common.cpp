#include "cli/cli_common.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <set>
#include <sstream>

#include "encodings/params.h"
#include "util/error.h"
#include "util/threads.h"

namespace poslab::cli {

void addCommonOptions(CLI::App* cmd, CommonOptions& opts) {
  cmd->add_option("--set", opts.sets,
                  "parameter NAME=VALUE (repeatable): gamma, omega, eta, L, c, base, scale, kappa, "
                  "order, heads, head_dim, g_fj, g_aff, g_lc, ... (see `families`)")
      ->allow_extra_args(false);
  cmd->add_flag("--json", opts.json, "print one JSON document on stdout");
}

std::map<std::string, double> parseSets(const std::vector<std::string>& sets) {
  std::map<std::string, double> out;
  for (const auto& s : sets) {
    auto [name, value] = parseAssignment(s);
    out[name] = value;
  }
  return out;
}

void printJson(const nlohmann::json& doc) {
  if (doc.is_object() && !doc.contains("threads") && configuredThreads() > 0) {
    nlohmann::json withThreads = doc;
    withThreads["threads"] = configuredThreads();
    std::cout << withThreads.dump(2) << "\n";
    return;
  }
  std::cout << doc.dump(2) << "\n";
}

void printTable(const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(header.size(), 0);
  for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], r[c].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      std::string cell = cells[c];
      cell.resize(width[c], ' ');
      out += cell + (c + 1 < cells.size() ? "  " : "");
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    std::cout << out << "\n";
  };
  line(header);
  std::vector<std::string> rule;
  for (size_t w : width) rule.push_back(std::string(w, '-'));
  line(rule);
  for (const auto& r : rows) line(r);
}

std::string formatNumber(double v, int precision) {
  if (std::isnan(v)) return "-";
  std::ostringstream os;
  os.precision(precision);
  os << v;
  return os.str();
}

CLI::Validator integerIn(long long lo, long long hi) {
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& v) -> std::string {
        char* end = nullptr;
        errno = 0;
        const long long n = std::strtoll(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0' || errno == ERANGE || n < lo || n > hi)
          return "'" + v + "' must be a whole number in " + range;
        return {};
      },
      range);
}

CLI::Validator numberIn(double lo, double hi) {
  const std::string range = "[" + formatNumber(lo) + ", " + formatNumber(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& v) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double x = std::strtod(v.c_str(), &end);
        if (v.empty() || *end != '\0' || !std::isfinite(x) || !(x >= lo && x <= hi))
          return "'" + v + "' must be a number in " + range;
        return {};
      },
      range);
}

void requireDistinct(const std::vector<std::string>& names, const std::string& what) {
  std::set<std::string> seen;
  for (const auto& n : names)
    if (!seen.insert(n).second)
      throw InvalidArgument(what + " lists '" + n + "' twice", "give each entry once");
}

void checkStdoutWritten() {
  errno = 0;
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    const int err = errno;
    throw Error(std::string("writing standard output failed") +
                (err != 0 ? std::string(": ") + std::strerror(err) : std::string()));
  }
}

}  // namespace poslab::cli
