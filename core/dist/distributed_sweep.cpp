#include "dist/distributed_sweep.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <set>

#include "dist/dist_group.h"
#include "io/atomic_file.h"
#include "io/json_input.h"
#include "train/run_checkpoint.h"
#include "train/run_result_json.h"
#include "util/error.h"

namespace poslab::dist {

namespace {

std::string sanitized(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  return out;
}

// The run file's result when it exists and was written for this run's config; nullopt when there
// is none. Throws InvalidArgument naming the file when it is unreadable or for another config.
std::optional<RunResult> finishedRun(const std::string& outDir, size_t index,
                                     const PlannedRun& run) {
  if (outDir.empty()) return std::nullopt;
  const std::string path = runFilePath(outDir, index, run);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  const std::string source = "run file '" + path + "'";
  const nlohmann::json doc = readJsonFile(path, "run file");
  if (!doc.is_object() || !doc.contains("config") || !doc.contains("result"))
    throw InvalidArgument(source + " is not a PosLab run file (no config and result)");
  if (doc["config"] != nlohmann::json(run.config))
    throw InvalidArgument(source + " was written for another setup than this sweep's run " +
                              std::to_string(index + 1),
                          "use another --out, or remove the folder to start the sweep again");
  return runResultFromJson(doc["result"], source);
}

void writeRunFile(const std::string& outDir, size_t index, const PlannedRun& run,
                  const RunResult& r) {
  if (outDir.empty()) return;
  std::filesystem::create_directories(outDir + "/runs");
  const nlohmann::json doc{
      {"index", index}, {"config", run.config}, {"result", runResultToJson(r)}};
  writeFileAtomically(runFilePath(outDir, index, run),
                      [&](std::ostream& os) { os << doc.dump(2) << "\n"; });
}

std::string runKey(size_t index) {
  return "sweep/run/" + std::to_string(index);
}

}  // namespace

namespace {
// NNN-LABEL: the plan index from 1 and the run's family, variant and seed.
std::string runName(size_t index, const PlannedRun& run) {
  char number[32];
  std::snprintf(number, sizeof number, "%03zu", index + 1);
  const std::string label = run.family + (run.variant.empty() ? "" : "-" + run.variant) + "-seed" +
                            std::to_string(run.seed);
  return number + ("-" + sanitized(label));
}
}  // namespace

std::string runFilePath(const std::string& outDir, size_t index, const PlannedRun& run) {
  return outDir + "/runs/" + runName(index, run) + ".json";
}

std::string runCheckpointPath(const std::string& outDir, size_t index, const PlannedRun& run) {
  return outDir + "/partial/" + runName(index, run) + ".pt";
}

size_t unfinishedRunCount(const ExperimentSpec& spec, const std::string& outDir) {
  const std::vector<PlannedRun> plan = planExperiment(spec);
  size_t n = 0;
  for (size_t i = 0; i < plan.size(); ++i) n += !finishedRun(outDir, i, plan[i]).has_value();
  return n;
}

std::vector<RunResult> runSweep(const ExperimentSpec& spec, const ExperimentProgress& progress,
                                const std::string& checkpointDir, int jobs,
                                const ExperimentRunDone& runDone, const SweepOptions& options) {
  const std::vector<PlannedRun> plan = planExperiment(spec);
  const size_t total = plan.size();
  DistGroup* group = options.group;
  const int rank = group ? group->rank() : 0;
  const int world = group ? group->worldSize() : 1;

  // The finished runs: rank 0 reads its folder and tells the others, so that every rank deals
  // the same remaining runs.
  std::vector<std::optional<RunResult>> finished(total);
  std::vector<size_t> remaining;
  if (rank == 0) {
    for (size_t i = 0; i < total; ++i) {
      finished[i] = finishedRun(options.outDir, i, plan[i]);
      if (!finished[i]) remaining.push_back(i);
      // A checkpoint left beside a finished run (killed between the two writes) is stale.
      if (finished[i]) removeRunCheckpoint(runCheckpointPath(options.outDir, i, plan[i]));
    }
  }
  if (group) {
    nlohmann::json configs = nlohmann::json::array();
    for (const auto& p : plan) configs.push_back(p.config);
    group->agree("sweep", std::to_string(std::hash<std::string>{}(configs.dump())));
    if (rank == 0)
      group->publish("sweep/remaining", nlohmann::json(remaining).dump());
    else
      remaining =
          nlohmann::json::parse(group->await("sweep/remaining", 0)).get<std::vector<size_t>>();
  }
  std::vector<int> owner(total, -1);
  for (size_t k = 0; k < remaining.size(); ++k) owner[remaining[k]] = static_cast<int>(k % world);

  RunCheckpointing checkpointing;
  if (!options.outDir.empty())
    checkpointing.path = [&](size_t index) {
      return runCheckpointPath(options.outDir, index, plan[index]);
    };
  checkpointing.everySteps = options.checkpointEvery;
  checkpointing.stop = options.stop;
  std::vector<RunResult> results = runExperiment(
      spec,
      [&](size_t index, size_t n, const RunResult& r, const Snapshot& snap) {
        if (group) group->checkPeers();  // a dead peer stops this rank within the timeout
        if (progress) progress(index, n, r, snap);
      },
      checkpointDir, jobs,
      [&](size_t index, size_t n, const RunResult& r) {
        writeRunFile(options.outDir, index, plan[index], r);
        if (group) group->publish(runKey(index), runResultToJson(r).dump());
        if (runDone) runDone(index, n, r);
      },
      [&](size_t index) { return owner[index] == rank; }, checkpointing, options.evalProgress);
  if (rank != 0) return {};

  for (size_t i = 0; i < total; ++i) {
    if (finished[i]) {
      results[i] = *finished[i];
    } else if (owner[i] != 0) {
      const std::string source =
          "rank " + std::to_string(owner[i]) + "'s result of run " + std::to_string(i + 1);
      results[i] =
          runResultFromJson(nlohmann::json::parse(group->await(runKey(i), owner[i])), source);
      writeRunFile(options.outDir, i, plan[i], results[i]);
      if (runDone) runDone(i, total, results[i]);
    }
  }
  return results;
}

}  // namespace poslab::dist
