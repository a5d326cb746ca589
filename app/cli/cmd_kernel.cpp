// `poslab-cli kernel --family ID --lags A:B`: the family's basis functions (and kernel) over lags.
#include <cstdlib>

#include "cli/cli_common.h"
#include "encodings/registry.h"
#include "io/atomic_file.h"
#include "limits/work_budget.h"
#include "util/error.h"

namespace poslab::cli {

namespace {
std::pair<long long, long long> parseLagRange(const std::string& text) {
  const auto colon = text.find(':');
  auto parse = [&](const std::string& s) {
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0') {
      throw InvalidArgument("--lags '" + text + "' is not A:B", "for example --lags 0:512");
    }
    return v;
  };
  if (colon == std::string::npos)
    throw InvalidArgument("--lags '" + text + "' is not A:B", "for example --lags 0:512");
  return {parse(text.substr(0, colon)), parse(text.substr(colon + 1))};
}
// Refuses a lag range whose table would not fit the budget, before computing any of it: its
// values and what this command holds of them (the text table, or the JSON document), and the
// CSV file's formatting when one is written too.
void checkTableFits(const Encoding& enc, long long a, long long b, bool json, bool csv) {
  const double lags = static_cast<double>(b) - static_cast<double>(a);
  if (a < 0 || lags <= 1) return;  // lagRange itself rejects an empty or negative range, as given
  const auto columns = static_cast<long long>(enc.basis(lagRange(a, a + 1)).names.size());
  WorkCost cost = lagTableCost(b - a, columns, json ? LagTableOutput::Json : LagTableOutput::Text);
  if (csv) cost.multiplyAdds += lagTableCost(b - a, columns, LagTableOutput::Csv).multiplyAdds;
  checkWorkFits(cost, "--lags " + std::to_string(a) + ":" + std::to_string(b) + " (" +
                          std::to_string(b - a) + " lags)");
}
}  // namespace

void addKernelCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("kernel", "print a family's lag basis functions and kernel");
  struct Opts {
    CommonOptions common;
    std::string family;
    std::string lags = "0:64";
    std::string csv;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--family", o->family, "family id (see `families`)")->required();
  cmd->add_option("--lags", o->lags, "lag range A:B (lags A..B-1)")->capture_default_str();
  cmd->add_option("--csv", o->csv, "also write the table as CSV to this file");
  addCommonOptions(cmd, o->common);
  cmd->callback([o] {
    auto enc = makeEncoding(o->family, parseSets(o->common.sets));
    auto [a, b] = parseLagRange(o->lags);
    checkTableFits(*enc, a, b, o->common.json, !o->csv.empty());
    LagBasis basis = enc->basis(lagRange(a, b));
    if (!o->csv.empty()) {
      writeFileAtomically(o->csv, [&](std::ostream& os) {
        os.precision(10);
        os << "lag";
        for (const auto& n : basis.names) os << "," << n;
        if (!basis.kernel.empty()) os << ",kernel";
        os << "\n";
        for (size_t t = 0; t < basis.lags.size(); ++t) {
          os << basis.lags[t];
          for (const auto& col : basis.columns) os << "," << col[t];
          if (!basis.kernel.empty()) os << "," << basis.kernel[t];
          os << "\n";
        }
      });
    }
    if (o->common.json) {
      nlohmann::json doc{{"family", enc->id()},
                         {"params", enc->params().values()},
                         {"lags", basis.lags},
                         {"basis", nlohmann::json::object()}};
      for (size_t c = 0; c < basis.names.size(); ++c)
        doc["basis"][basis.names[c]] = basis.columns[c];
      if (!basis.kernel.empty()) doc["kernel"] = basis.kernel;
      return printJson(doc);
    }
    std::vector<std::string> header{"lag"};
    for (const auto& n : basis.names) header.push_back(n);
    if (!basis.kernel.empty()) header.push_back("kernel");
    std::vector<std::vector<std::string>> rows;
    for (size_t t = 0; t < basis.lags.size(); ++t) {
      std::vector<std::string> row{formatNumber(basis.lags[t])};
      for (const auto& col : basis.columns) row.push_back(formatNumber(col[t], 5));
      if (!basis.kernel.empty()) row.push_back(formatNumber(basis.kernel[t], 5));
      rows.push_back(std::move(row));
    }
    printTable(header, rows);
  });
}

}  // namespace poslab::cli
