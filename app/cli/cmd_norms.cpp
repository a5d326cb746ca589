// `poslab-cli norms --family ID --max-pos N`: feature-norm profile on a log grid and the first
// position where float32 overflows or loses precision, beside the same vector under the
// light-cone chart transform (MATH 4.3.1), which stays bounded at any position.
#include <cmath>
#include <iostream>

#include "analysis/feature_norms.h"
#include "cli/cli_common.h"
#include "encodings/registry.h"
#include "limits/work_budget.h"

namespace poslab::cli {

namespace {
nlohmann::json reportJson(const PrecisionReport& r) {
  return {
      {"ok", r.ok},
      {"first_bad_position", r.ok ? nlohmann::json(nullptr) : nlohmann::json(r.firstBadPosition)},
      {"problem", r.problem},
      {"detail", r.detail}};
}
std::string ratioText(double log10Ratio) {
  if (log10Ratio > 300) return "1e" + formatNumber(log10Ratio, 5);
  return formatNumber(std::pow(10.0, log10Ratio), 5);
}
}  // namespace

void addNormsCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("norms", "feature-norm profile of a family's factorized form");
  struct Opts {
    CommonOptions common;
    std::string family;
    long long maxPos = 32768;
    int perDecade = 8;
    unsigned seed = 0;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--family", o->family, "family id")->required();
  cmd->add_option("--max-pos", o->maxPos, "largest position N")
      ->capture_default_str()
      ->check(integerIn(1, 10'000'000));  // featureNormProfile's range, the text as given
  cmd->add_option("--per-decade", o->perDecade, "grid points per decade")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  cmd->add_option("--seed", o->seed, "seed of the fixed random vector")->capture_default_str();
  addCommonOptions(cmd, o->common);
  cmd->callback([o] {
    auto enc = makeEncoding(o->family, parseSets(o->common.sets));
    const std::vector<long long> grid = logPositionGrid(o->maxPos, o->perDecade);
    checkWorkFits(featureNormCost(o->maxPos, static_cast<long long>(grid.size()), enc->isRelative(),
                                  enc->heads(), enc->headDim()),
                  "--max-pos " + std::to_string(o->maxPos));
    NormProfile prof = featureNormProfile(*enc, grid, o->seed);
    if (o->common.json) {
      nlohmann::json doc{{"family", prof.family},
                         {"factorized", prof.factorized},
                         {"max_pos", o->maxPos},
                         {"rows", nlohmann::json::array()},
                         {"float32", reportJson(prof.float32)},
                         {"float64", reportJson(prof.float64)},
                         {"lightcone_chart",
                          {{"L", prof.chart.L},
                           {"order", prof.chart.order},
                           {"eta", prof.chart.eta},
                           {"norm_bound", prof.chartNormBound}}}};
      for (const auto& r : prof.rows)
        doc["rows"].push_back({{"position", r.position},
                               {"log10_q_ratio", r.log10QueryRatio},
                               {"log10_k_ratio", r.log10KeyRatio},
                               {"logit_scale", r.logitScale},
                               {"log10_lc_q_ratio", r.log10ChartQueryRatio},
                               {"log10_lc_k_ratio", r.log10ChartKeyRatio}});
      return printJson(doc);
    }
    std::cout << "Feature norms of " << prof.family
              << (prof.factorized ? " (factorized form)" : " (direct form only: q, k untouched)")
              << ", fixed random vector, seed " << o->seed << "\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : prof.rows)
      rows.push_back({std::to_string(r.position), ratioText(r.log10QueryRatio),
                      ratioText(r.log10KeyRatio), formatNumber(r.logitScale, 5),
                      ratioText(r.log10ChartQueryRatio), ratioText(r.log10ChartKeyRatio)});
    printTable({"position", "|q'|/|q|", "|k'|/|k|", "logit scale", "LC |q'|/|q|", "LC |k'|/|k|"},
               rows);
    auto say = [](const char* name, const PrecisionReport& r) {
      std::cout << name << ": ";
      if (r.ok)
        std::cout << "fine up to the last position\n";
      else
        std::cout << r.problem << " from position " << r.firstBadPosition << " — " << r.detail
                  << "\n";
    };
    std::cout << "\n";
    say("float32", prof.float32);
    say("float64", prof.float64);
    std::cout << "light-cone chart (L = " << formatNumber(prof.chart.L) << ", blocks of order "
              << prof.chart.order << ", eta " << formatNumber(prof.chart.eta)
              << "): every norm ratio stays below " << formatNumber(prof.chartNormBound, 4)
              << " at any position, in float32 too\n";
  });
}

}  // namespace poslab::cli
