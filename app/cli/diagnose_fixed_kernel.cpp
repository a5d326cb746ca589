#include "cli/diagnose_fixed_kernel.h"

#include <iostream>

#include "cli/cli_common.h"
#include "cli/progress.h"
#include "limits/work_budget.h"

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
  const size_t targetCount = targets.empty() ? 8 : targets.size();  // empty: the reference's eight
  checkFixedRecoverySettings(s, 0);  // the ranges first: the estimate below assumes them
  // Minutes at most, with progress (limits/work_budget.h): every basis of every target and
  // frequency, built over L and each evaluation length.
  std::string lengths;
  for (long long t : s.evalLengths) lengths += (lengths.empty() ? "" : ",") + std::to_string(t);
  checkWorkFits(fixedRecoveryCost(static_cast<long long>(targetCount),
                                  static_cast<long long>(s.omegaCycles.size()), s.trainLength,
                                  s.evalLengths, s.maxOrder),
                "--eval-lengths " + lengths + " with --train-len " + std::to_string(s.trainLength) +
                    ", " + std::to_string(s.omegaCycles.size()) + " --omega-cycles, " +
                    std::to_string(targetCount) + " targets and --max-order " +
                    std::to_string(s.maxOrder),
                kProgressWorkBudget);
  ProgressBar bar("diagnose",
                  static_cast<long long>(s.omegaCycles.size() * targetCount) *
                      static_cast<long long>(fixedRecoveryBasisNames(s.maxOrder).size()));
  const auto rows = runFixedRecovery(
      s, targets, [&](long long done, long long) { bar.updateCount(done, "fits"); });
  bar.finish();
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
