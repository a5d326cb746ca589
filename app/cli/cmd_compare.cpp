// `poslab-cli compare` (several families on identical batches) and `poslab-cli run --preset`
// (a paper experiment from resources/presets/).
#include <iostream>

#include "cli/experiment_report.h"
#include "cli/progress.h"
#include "cli/train_options.h"
#include "tasks/task.h"
#include "train/experiment.h"
#include "util/error.h"

namespace poslab::cli {

namespace {
void runAndReport(const ExperimentSpec& spec, bool json, const std::string& checkpointDir) {
  std::unique_ptr<ProgressBar> bar;
  size_t current = static_cast<size_t>(-1);
  auto results = runExperiment(
      spec,
      [&](size_t index, size_t total, const RunResult& r, const Snapshot& snap) {
        if (index != current) {
          if (bar) bar->finish();
          current = index;
          const std::string label = "[" + std::to_string(index + 1) + "/" + std::to_string(total) +
                                    "] " + (r.variant.empty() ? "" : r.variant + " ") + r.family +
                                    " seed " + std::to_string(r.seed);
          bar = std::make_unique<ProgressBar>(label, spec.base.run.steps);
        }
        bar->update(snap);
      },
      checkpointDir);
  if (bar) bar->finish();
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
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--families", o->families, "comma-separated family ids")->required();
  cmd->add_option("--seeds", o->seeds, "comma-separated seeds (default: --seed)");
  cmd->add_option("--checkpoints", o->checkpoints, "directory to save each run's checkpoint in");
  addTrainOptions(cmd, o->t);
  cmd->callback([o] {
    ExperimentSpec spec;
    spec.name = "compare";
    spec.families = parseNameList(o->families);
    if (spec.families.empty()) throw InvalidArgument("--families is empty");
    for (const auto& f : spec.families) buildTrainConfig(o->t, f);  // validate every family first
    spec.base = buildTrainConfig(o->t, spec.families.front());
    spec.seeds = {spec.base.run.seed};
    if (!o->seeds.empty()) {
      spec.seeds = parseSeedList(o->seeds, "--seeds");
    }
    runAndReport(spec, o->t.common.json, o->checkpoints);
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
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--preset", o->preset, "preset name (see --list)");
  cmd->add_flag("--list", o->list, "list the presets");
  cmd->add_option("--seeds", o->seeds, "override the preset's seeds, e.g. 0,1,2");
  cmd->add_option("--steps", o->steps, "override the preset's step count (a quick look)");
  cmd->add_option("--checkpoints", o->checkpoints, "directory to save each run's checkpoint in");
  cmd->add_flag("--json", o->json, "print one JSON document on stdout");
  cmd->callback([o] {
    if (o->list || o->preset.empty()) {
      if (!o->list) throw InvalidArgument("--preset is required", "see run --list");
      for (const auto& name : presetNames()) {
        ExperimentSpec s = loadPreset(name);
        std::cout << name << "\n    " << s.description << "\n";
      }
      return;
    }
    ExperimentSpec spec = loadPreset(o->preset);
    if (!o->seeds.empty()) {
      spec.seeds = parseSeedList(o->seeds, "--seeds");
    }
    if (o->steps > 0) spec.base.run.steps = o->steps;
    spec.base.validate();
    runAndReport(spec, o->json, o->checkpoints);
  });
}

}  // namespace poslab::cli
