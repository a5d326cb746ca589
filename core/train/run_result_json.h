// One run's result (RunResult) as JSON and back, losslessly: what a distributed sweep sends from
// each rank to rank 0 and what it keeps on disk for each finished run, so that gathered and
// resumed results print exactly as results trained in this process. Doubles keep their 17
// significant digits; NaN (a task without accuracy) is null.
#pragma once

#include <nlohmann/json.hpp>

#include "train/experiment.h"

namespace poslab {

nlohmann::json runResultToJson(const RunResult& r);
// Throws InvalidArgument naming `source` and the field for a document runResultToJson did not
// write.
RunResult runResultFromJson(const nlohmann::json& j, const std::string& source);

}  // namespace poslab
