// Printing experiment results: the JSON document of the CLI contract
// {"task": ID, "results": [{"family", "seed", "eval": [{"length", "loss", "accuracy"}]}]}
// and a family-by-length table (mean and spread over seeds).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "train/experiment.h"

namespace poslab::cli {

// [{"length", "loss", "accuracy" (null for tasks without one)}, ...]
nlohmann::json evalJson(const std::vector<EvalResult>& eval);
nlohmann::json resultsJson(const std::string& task, const std::vector<RunResult>& results);
void printResultsTable(const std::vector<RunResult>& results, bool hasAccuracy);

}  // namespace poslab::cli
