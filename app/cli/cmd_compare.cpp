// `poslab-cli compare` (several families on identical batches) and `poslab-cli run --preset`
// (a paper experiment from resources/presets/).
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>

#include "cli/distributed.h"
#include "cli/experiment_progress.h"
#include "cli/experiment_report.h"
#include "cli/stop_signals.h"
#include "cli/train_options.h"
#include "dist/distributed_sweep.h"
#include "io/json_fields.h"
#include "tasks/task.h"
#include "train/experiment.h"
#include "train/experiment_plan.h"
#include "train/run_limits.h"
#include "train/trainable_check.h"
#include "util/error.h"
#include "util/threads.h"

namespace poslab::cli {

namespace {
// Creates --checkpoints (or --out) before any training, so that a bad path fails in a second,
// not after the whole experiment.
void prepareDir(const std::string& dir, const std::string& option) {
  if (dir.empty()) return;
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw InvalidArgument(option + " " + dir + " exists and is not a directory",
                          "give a directory to save each run's " +
                              std::string(option == "--out" ? "result" : "checkpoint") + " in");
  fs::create_directories(dir, ec);
  if (ec) throw InvalidArgument(option + " " + dir + ": cannot create it: " + ec.message());
  if (::access(dir.c_str(), W_OK) != 0)
    throw InvalidArgument(option + " " + dir + " is not writable");
}

// Where the sweep's results go and how it is launched (one process, or torchrun / srun).
struct SweepSetup {
  std::string checkpointDir;       // --checkpoints
  std::string outDir;              // --out: each finished run's result; a rerun skips them
  int jobs = 0;                    // --jobs
  long long checkpointEvery = 20;  // --checkpoint-every: steps between a run's checkpoints in --out
  DistOptions dist;
};

// One line: which runs were saved at which step, and the command that continues them.
std::string stoppedMessage(const SweepStopped& stopped, const char* signal,
                           const ExperimentSpec& spec, const std::string& outDir) {
  std::string line = std::string("stopped by ") + signal + ": ";
  if (outDir.empty())
    return line + "no --out was given, so the runs in flight are not kept (with --out DIR a " +
           "stopped sweep continues where it was)";
  if (stopped.saved.empty()) {
    line += "no run was in flight";
  } else {
    const std::vector<PlannedRun> plan = planExperiment(spec);
    for (size_t k = 0; k < stopped.saved.size(); ++k) {
      const auto& s = stopped.saved[k];
      line += (k ? ", " : "") + plan[s.index].family +
              (plan[s.index].variant.empty() ? "" : " " + plan[s.index].variant) + " seed " +
              std::to_string(plan[s.index].seed) + " saved at step " + std::to_string(s.step);
    }
    line += " (in " + outDir + "/partial)";
  }
  return line + "; continue with: " + commandLine();
}

// --families of `run`: the preset's families named in `list`, in the preset's order.
std::vector<std::string> presetFamilySubset(const ExperimentSpec& spec, const std::string& preset,
                                            const std::string& list) {
  const std::vector<std::string> wanted = parseNameList(list);
  if (wanted.empty()) throw InvalidArgument("--families is empty");
  requireDistinct(wanted, "--families");
  std::string known;
  for (const auto& f : spec.families) known += (known.empty() ? "" : ", ") + f;
  for (const auto& f : wanted)
    if (std::find(spec.families.begin(), spec.families.end(), f) == spec.families.end())
      throw InvalidArgument("--families: " + f + " is not one of preset " + preset + "'s families",
                            "its families: " + known);
  std::vector<std::string> kept;
  for (const auto& f : spec.families)
    if (std::find(wanted.begin(), wanted.end(), f) != wanted.end()) kept.push_back(f);
  return kept;
}

void runAndReport(const ExperimentSpec& spec, bool json, const SweepSetup& setup) {
  int jobs = setup.jobs;
  if (jobs < 0) throw InvalidArgument("--jobs must be 0 (one per core) or more");
  prepareDir(setup.checkpointDir, "--checkpoints");
  prepareDir(setup.outDir, "--out");
  const std::unique_ptr<dist::DistGroup> group = joinLaunch(setup.dist);
  std::vector<RunResult> results;
  runReportingFailure(group.get(), [&] {
    if (jobs == 0) jobs = defaultExperimentJobs(spec.base);
    // The display needs the count runExperiment will use (no more jobs than runs).
    size_t runs = setup.outDir.empty() ? experimentRunCount(spec)
                                       : dist::unfinishedRunCount(spec, setup.outDir);
    const size_t planned = experimentRunCount(spec);
    if (runs < planned && (!group || group->rank() == 0))
      std::cerr << planned - runs << " of " << planned << " runs already in " << setup.outDir
                << "/runs: skipped\n";
    if (group) runs = (runs + group->worldSize() - 1) / group->worldSize();
    jobs = static_cast<int>(std::min<size_t>(static_cast<size_t>(jobs), std::max<size_t>(1, runs)));
    std::vector<RunWork> work;  // by plan index, for the ETA
    for (const PlannedRun& p : planExperiment(spec)) work.push_back(plannedRunWork(p.config));
    ExperimentProgressView view(spec.base.run.steps, jobs, std::move(work), runs);
    StopSignals stop;
    try {
      results = dist::runSweep(
          spec,
          [&](size_t index, size_t total, const RunResult& r, const Snapshot& snap) {
            view.update(index, total, r, snap);
          },
          setup.checkpointDir, jobs,
          [&](size_t index, size_t total, const RunResult& r) { view.runDone(index, total, r); },
          {setup.outDir, group.get(), setup.checkpointEvery, &stop.requested(),
           [&](size_t index, size_t total, const RunResult& r, const EvaluationProgress& at) {
             view.evaluation(index, total, r, at);
           }});
    } catch (const SweepStopped& stopped) {
      view.finish();
      throw StoppedBySignal(stoppedMessage(stopped, stop.signalName(), spec, setup.outDir),
                            stop.signalNumber());
    } catch (...) {
      view.finish();  // clear the live line before the error is printed
      throw;
    }
    view.finish();
    if (group) group->leave();
  });
  if (group && group->rank() != 0) return;  // rank 0 reports the whole sweep
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
void addSweepOptions(CLI::App* cmd, SweepSetup& s) {
  cmd->add_option("--checkpoints", s.checkpointDir, "directory to save each run's checkpoint in");
  cmd->add_option("--out", s.outDir,
                  "directory to save each run's result in as it ends; a rerun skips those runs");
  cmd->add_option("--checkpoint-every", s.checkpointEvery,
                  "with --out: steps between the checkpoints of each run in flight, from which a "
                  "stopped or killed sweep continues when the same command is given again")
      ->check(integerIn(1, kMaxTrainSteps))
      ->capture_default_str();
  // More jobs than threads a process may have only oversubscribe the machine: at --jobs 1000 a
  // SIGINT went unanswered for minutes (a thousand runs finishing their steps).
  const int mostJobs =
      kMaxThreadsPerCore * std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  cmd->add_option(
         "--jobs", s.jobs,
         "runs trained at once, each on its share of the cores (0: one per core; at most " +
             std::to_string(mostJobs) + ", " + std::to_string(kMaxThreadsPerCore) + " per core)")
      ->check(integerIn(0, mostJobs))
      ->capture_default_str();
  addDistOptions(cmd, s.dist);
}
}  // namespace

void addCompareCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("compare", "train several families on identical batches");
  struct Opts {
    TrainOptions t;
    std::string families;
    std::string seeds;
    SweepSetup sweep;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--families", o->families, "comma-separated family ids")->required();
  cmd->add_option("--seeds", o->seeds, "comma-separated seeds (default: --seed)");
  addSweepOptions(cmd, o->sweep);
  addTrainOptions(cmd, o->t);
  cmd->callback([o] {
    ExperimentSpec spec;
    spec.name = "compare";
    spec.families = parseNameList(o->families);
    if (spec.families.empty()) throw InvalidArgument("--families is empty");
    requireDistinct(spec.families, "--families");
    spec.base = buildTrainConfig(o->t, spec.families.front());
    // Every family can train, before any does: each family's run as planned (with the pins its
    // family learns, the fields named as the options' config), and the experiment's pins
    // (checkExperimentPins, the rule checkTrainable applies to a preset).
    spec.seeds = {spec.base.run.seed};
    for (const PlannedRun& run : planExperiment(spec))
      checkTrainable(run.config, trainOptionsSource(o->t));
    checkExperimentPins(spec);
    if (!o->seeds.empty()) {
      spec.seeds = parseSeedList(o->seeds, "--seeds");
    }
    std::vector<std::string> seedNames;
    for (uint64_t s : spec.seeds) seedNames.push_back(std::to_string(s));
    requireDistinct(seedNames, "--seeds");
    runAndReport(spec, o->t.common.json, o->sweep);
  });
}

void addRunCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "run a paper experiment preset");
  struct Opts {
    std::string preset;
    std::string families;
    std::string seeds;
    long long steps = 0;
    long long evalSequences = 0;
    std::string evalLengths;
    long long evalData = -1;
    double positionLr = 0;
    std::string device;
    bool recomputeActivations = false;
    std::string text;
    bool list = false;
    bool json = false;
    SweepSetup sweep;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--preset", o->preset, "preset name (see --list)");
  cmd->add_flag("--list", o->list, "list the presets");
  cmd->add_option(
      "--families", o->families,
      "train only these of the preset's families (comma-separated; the preset's order)");
  cmd->add_option("--seeds", o->seeds, "override the preset's seeds, e.g. 0,1,2");
  cmd->add_option(
         "--steps", o->steps,
         "override the preset's step count (the evaluation at the preset's lengths still runs: "
         "minutes for a paper preset on a CPU; --eval-sequences and --eval-lengths shorten it)")
      ->check(integerIn(1, kMaxTrainSteps));
  cmd->add_option("--eval-sequences", o->evalSequences,
                  "override the preset's sequences per evaluation length (run.eval_sequences); "
                  "a quick look at a paper preset: --steps 1 --eval-sequences 8")
      ->check(integerIn(1, 1LL << 30));
  cmd->add_option("--eval-lengths", o->evalLengths,
                  "override the preset's evaluation lengths (run.eval_lengths, comma-separated)");
  cmd->add_option("--eval-data", o->evalData,
                  "override the preset's evaluation sequence set (run.eval_data; 0 the usual)")
      ->check(integerIn(0, 1LL << 31));
  cmd->add_option("--position-lr", o->positionLr,
                  "override the preset's learning-rate multiplier of the position parameters "
                  "(optim.position_lr_scale)")
      ->check(numberIn(0.001, 100000.0));
  cmd->add_option("--device", o->device, "override the preset's device (run.device)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_flag("--recompute-activations", o->recomputeActivations,
                "recompute each block in the backward: lower peak memory, the same results "
                "(run.recompute_activations)");
  cmd->add_option(
      "--text", o->text,
      "the text file of a byte-lm preset (task.text_file; byte-lm-paper: WikiText-103)");
  cmd->add_flag("--json", o->json, "print one JSON document on stdout");
  addSweepOptions(cmd, o->sweep);
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
    if (!o->families.empty()) spec.families = presetFamilySubset(spec, o->preset, o->families);
    if (!o->seeds.empty()) {
      spec.seeds = parseSeedList(o->seeds, "--seeds");
      std::vector<std::string> seedNames;
      for (uint64_t s : spec.seeds) seedNames.push_back(std::to_string(s));
      requireDistinct(seedNames, "--seeds");
    }
    // The options given over the preset, named in any refusal of what they changed.
    std::string overrides;
    auto given = [&](const std::string& option, const std::string& value) {
      overrides += (overrides.empty() ? " with " : " ") + option + " " + value;
    };
    if (o->steps > 0) {
      spec.base.run.steps = o->steps;
      given("--steps", std::to_string(o->steps));
    }
    if (o->evalSequences > 0) {
      spec.base.run.evalSequences = o->evalSequences;
      given("--eval-sequences", std::to_string(o->evalSequences));
    }
    if (!o->evalLengths.empty()) {
      spec.base.run.evalLengths = parseLengthList(o->evalLengths, "--eval-lengths");
      given("--eval-lengths", o->evalLengths);
    }
    if (o->evalData >= 0) spec.base.run.evalData = static_cast<uint64_t>(o->evalData);
    if (o->positionLr > 0) spec.base.optim.positionLrScale = o->positionLr;
    if (!o->device.empty()) spec.base.run.device = o->device;
    if (o->recomputeActivations) spec.base.run.recomputeActivations = true;
    if (!o->text.empty()) {
      if (!taskTakesText(spec.base.task.id))
        throw InvalidArgument("--text: preset " + o->preset + "'s task " + spec.base.task.id +
                              " reads no text");
      spec.base.task.textFile = o->text;
    }
    checkTrainable(spec, JsonPath{presetSource(file) + overrides, ""});  // before anything trains
    runAndReport(spec, o->json, o->sweep);
  });
}

}  // namespace poslab::cli
