// metrics.jsonl of a `train` run directory, kept consistent with checkpoint.pt under any kill.
// At an evaluation step the checkpoint is written before the (possibly long) evaluation, so that
// a kill during it keeps the trained model; the step's metrics line can only follow the
// evaluation. The line without its evaluation is therefore written first, to a pending file: a
// resume that finds the checkpoint's step missing from metrics.jsonl evaluates the checkpoint
// again and writes the line from it (a SIGTERM between checkpoint and line lost it for good).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "train/snapshot.h"

namespace poslab::cli {

// The metrics line of a snapshot, without "eval".
nlohmann::json metricsLine(const Snapshot& snap);

// Keeps the lines of metrics.jsonl up to `step` (those of the checkpoint --resume continues
// from); the lines of steps after it are trained again. A line cut by a kill ends it.
void truncateMetrics(const std::string& path, long long step);

// True when metrics.jsonl at `path` has the line of `step`.
bool metricsHaveStep(const std::string& path, long long step);

// The pending line of run directory `dir`: written (atomically) before the checkpoint of an
// evaluation step, removed once the full line is in metrics.jsonl.
void writePendingLine(const std::string& dir, const nlohmann::json& line);
void clearPendingLine(const std::string& dir);
// The pending line when it is of `step` and metrics.jsonl lacks that step, else nothing.
std::optional<nlohmann::json> missingLineOf(const std::string& dir, long long step);

}  // namespace poslab::cli
