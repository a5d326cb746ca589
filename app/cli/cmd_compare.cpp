// `poslab-cli compare` (several families on identical batches) and `poslab-cli run --preset`
// (a paper experiment from resources/presets/).
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/experiment_progress.h"
#include "cli/experiment_report.h"
#include "cli/train_options.h"
#include "io/json_fields.h"
#include "tasks/task.h"
#include "train/experiment.h"
#include "train/run_limits.h"
#include "train/trainable_check.h"
#include "util/error.h"

namespace poslab::cli {

namespace {
// Creates --checkpoints before any training, so that a bad path fails in a second, not after
// the whole experiment.
void prepareCheckpointDir(const std::string& dir) {
  if (dir.empty()) return;
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw InvalidArgument("--checkpoints " + dir + " exists and is not a directory",
                          "give a directory to save each run's checkpoint in");
  fs::create_directories(dir, ec);
  if (ec) throw InvalidArgument("--checkpoints " + dir + ": cannot create it: " + ec.message());
  if (::access(dir.c_str(), W_OK) != 0)
    throw InvalidArgument("--checkpoints " + dir + " is not writable");
}

void runAndReport(const ExperimentSpec& spec, bool json, const std::string& checkpointDir,
                  int jobs) {
  if (jobs < 0) throw InvalidArgument("--jobs must be 0 (one per core) or more");
  prepareCheckpointDir(checkpointDir);
  if (jobs == 0) jobs = defaultExperimentJobs(spec.base);
  // The display needs the count runExperiment will use (no more jobs than runs).
  const size_t runs = std::max<size_t>(1, experimentRunCount(spec));
  jobs = static_cast<int>(std::min<size_t>(static_cast<size_t>(jobs), runs));
  ExperimentProgressView view(spec.base.run.steps, jobs);
  std::vector<RunResult> results;
  try {
    results = runExperiment(
        spec,
        [&](size_t index, size_t total, const RunResult& r, const Snapshot& snap) {
          view.update(index, total, r, snap);
        },
        checkpointDir, jobs,
        [&](size_t index, size_t total, const RunResult& r) { view.runDone(index, total, r); });
  } catch (...) {
    view.finish();  // clear the live line before the error is printed
    throw;
  }
  view.finish();
  if (json) {
    nlohmann::json doc = resultsJson(spec.base.task.id, results);
    if (!spec.name.empty()) doc["preset"] = spec.name;
    return printJson(doc);
  }
  if (!spec.description.empty()) std::cout << spec.description << "\n";
  if (!spec.paperResult.empty()) std::cout << "Paper: " << spec.paperResult << "\n";
  std::cout << "\n";
  printResultsTable(results, makeTask(spec.base.task)->hasAccuracy());
}
}  // namespace

void addCompareCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("compare", "train several families on identical batches");
  struct Opts {
    TrainOptions t;
    std::string families;
    std::string seeds;
    std::string checkpoints;
    int jobs = 0;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--families", o->families, "comma-separated family ids")->required();
  cmd->add_option("--seeds", o->seeds, "comma-separated seeds (default: --seed)");
  cmd->add_option("--checkpoints", o->checkpoints, "directory to save each run's checkpoint in");
  cmd->add_option("--jobs", o->jobs,
                  "runs trained at once, each on its share of the cores (0: one per core)")
      ->capture_default_str();
  addTrainOptions(cmd, o->t);
  cmd->callback([o] {
    ExperimentSpec spec;
    spec.name = "compare";
    spec.families = parseNameList(o->families);
    if (spec.families.empty()) throw InvalidArgument("--families is empty");
    requireDistinct(spec.families, "--families");
    for (const auto& f : spec.families)  // every family can train, before any does
      checkTrainable(buildTrainConfig(o->t, f), trainOptionsSource(o->t));
    spec.base = buildTrainConfig(o->t, spec.families.front());
    spec.seeds = {spec.base.run.seed};
    if (!o->seeds.empty()) {
      spec.seeds = parseSeedList(o->seeds, "--seeds");
    }
    std::vector<std::string> seedNames;
    for (uint64_t s : spec.seeds) seedNames.push_back(std::to_string(s));
    requireDistinct(seedNames, "--seeds");
    runAndReport(spec, o->t.common.json, o->checkpoints, o->jobs);
  });
}

void addRunCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "run a paper experiment preset");
  struct Opts {
    std::string preset;
    std::string seeds;
    long long steps = 0;
    std::string checkpoints;
    bool list = false;
    bool json = false;
    int jobs = 0;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--preset", o->preset, "preset name (see --list)");
  cmd->add_flag("--list", o->list, "list the presets");
  cmd->add_option("--seeds", o->seeds, "override the preset's seeds, e.g. 0,1,2");
  cmd->add_option("--steps", o->steps, "override the preset's step count (a quick look)")
      ->check(integerIn(1, kMaxTrainSteps));
  cmd->add_option("--checkpoints", o->checkpoints, "directory to save each run's checkpoint in");
  cmd->add_flag("--json", o->json, "print one JSON document on stdout");
  cmd->add_option("--jobs", o->jobs,
                  "runs trained at once, each on its share of the cores (0: one per core)")
      ->capture_default_str();
  cmd->callback([o] {
    if (o->list || o->preset.empty()) {
      if (!o->list) throw InvalidArgument("--preset is required", "see run --list");
      for (const auto& name : presetNames()) {
        ExperimentSpec s = loadPreset(name);
        std::cout << name << "\n    " << s.description << "\n";
      }
      return;
    }
    const std::string file = presetFile(o->preset);
    ExperimentSpec spec = readExperimentFile(file, "preset file");
    if (!o->seeds.empty()) {
      spec.seeds = parseSeedList(o->seeds, "--seeds");
    }
    if (o->steps > 0) spec.base.run.steps = o->steps;
    checkTrainable(spec, JsonPath{presetSource(file), ""});  // before anything trains
    runAndReport(spec, o->json, o->checkpoints, o->jobs);
  });
}

}  // namespace poslab::cli
