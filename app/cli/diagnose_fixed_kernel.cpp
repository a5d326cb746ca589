#include "cli/diagnose_fixed_kernel.h"

#include <iostream>

#include "cli/cli_common.h"

namespace poslab::cli {

namespace {
nlohmann::json rowJson(const FixedRecoveryRow& r) {
  return {{"omega_cycles", r.omegaCycles},
          {"target", r.target},
          {"basis", r.basis},
          {"eval_len", r.evalLength},
          {"train_mse", r.trainMse},
          {"mse", r.mse},
          {"r2", r.r2},
          {"condition_number", r.conditionNumber}};
}
}  // namespace

void runFixedKernelRecovery(const FixedRecoverySettings& s, const std::vector<std::string>& targets,
                            bool json) {
  const auto rows = runFixedRecovery(s, targets);
  const double exactTolerance = fixedRecoveryExactTolerance(s.float64);
  const auto best = bestFixedRecovery(rows, exactTolerance);
  const long long longest = best.empty() ? 0 : best.front().row.evalLength;
  if (json) {
    nlohmann::json doc{{"config",
                        {{"train_len", s.trainLength},
                         {"eval_lengths", s.evalLengths},
                         {"omega_cycles", s.omegaCycles},
                         {"max_order", s.maxOrder},
                         {"float64", s.float64}}},
                       {"final_eval_len", longest},
                       {"exact_tolerance", exactTolerance},
                       {"best", nlohmann::json::array()},
                       {"rows", nlohmann::json::array()}};
    for (const auto& b : best) {
      nlohmann::json j = rowJson(b.row);
      j["extrapolation_ratio"] = b.extrapolationRatio;
      j["exact_fits"] = b.exactFits;
      doc["best"].push_back(j);
    }
    for (const auto& r : rows) doc["rows"].push_back(rowJson(r));
    return printJson(doc);
  }
  std::cout << "Fixed kernel recovery: least-squares readout of each fixed basis on d < L = "
            << s.trainLength << ", best basis @ T = " << longest
            << (s.float64 ? " (float64)" : " (float32)") << "\n\n";
  std::vector<std::vector<std::string>> table;
  for (const auto& b : best)
    table.push_back({formatNumber(b.row.omegaCycles), b.row.target, b.row.basis,
                     formatNumber(b.row.mse, 4), formatNumber(b.row.r2, 5),
                     formatNumber(b.row.conditionNumber, 3), formatNumber(b.extrapolationRatio, 3),
                     std::to_string(b.exactFits.size())});
  printTable(
      {"omega cycles", "target", "basis", "mse", "r2", "cond", "mse(T)/mse(T_min)", "exact fits"},
      table);
  std::cout << "\nexact fits: bases with 1 - R^2 <= " << formatNumber(exactTolerance)
            << " at T = " << longest
            << "; where there are several, the best of them is rounding noise.\n"
               "(which bases, and every basis and length: --json)\n";
}

}  // namespace poslab::cli
