#include "cli/run_metrics.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <vector>

#include "io/atomic_file.h"

namespace poslab::cli {

namespace {
std::string pendingPath(const std::string& dir) {
  return dir + "/.metrics-pending.json";
}
}  // namespace

nlohmann::json metricsLine(const Snapshot& snap) {
  nlohmann::json line{{"step", snap.step},
                      {"loss", snap.loss},
                      {"lr", snap.lr},
                      {"grad_norm", snap.gradNorm},
                      {"tokens_per_s", snap.tokensPerSecond},
                      {"position", snap.position}};
  if (!std::isnan(snap.accuracy)) line["accuracy"] = snap.accuracy;
  return line;
}

void truncateMetrics(const std::string& path, long long step) {
  std::ifstream in(path);
  std::vector<std::string> kept;
  for (std::string line; std::getline(in, line);) {
    try {
      if (nlohmann::json::parse(line).at("step").get<long long>() <= step) kept.push_back(line);
    } catch (const std::exception&) {
      break;  // a line cut by a kill: nothing after it is kept
    }
  }
  writeFileAtomically(path, [&](std::ostream& os) {
    for (const auto& l : kept) os << l << "\n";
  });
}

bool metricsHaveStep(const std::string& path, long long step) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    try {
      if (nlohmann::json::parse(line).at("step").get<long long>() == step) return true;
    } catch (const std::exception&) {
      return false;
    }
  }
  return false;
}

void writePendingLine(const std::string& dir, const nlohmann::json& line) {
  writeFileAtomically(pendingPath(dir), [&](std::ostream& os) { os << line.dump() << "\n"; });
}

void clearPendingLine(const std::string& dir) {
  std::error_code ec;
  std::filesystem::remove(pendingPath(dir), ec);
}

std::optional<nlohmann::json> missingLineOf(const std::string& dir, long long step) {
  std::ifstream in(pendingPath(dir));
  if (!in) return std::nullopt;
  try {
    nlohmann::json line = nlohmann::json::parse(in);
    if (line.at("step").get<long long>() != step) return std::nullopt;
    if (metricsHaveStep(dir + "/metrics.jsonl", step)) return std::nullopt;
    return line;
  } catch (const std::exception&) {
    return std::nullopt;  // written atomically: only a foreign file is unreadable
  }
}

}  // namespace poslab::cli
