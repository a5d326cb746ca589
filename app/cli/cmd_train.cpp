// `poslab-cli train` and `poslab-cli eval`: one run with a progress bar, JSONL metrics, config and
// checkpoint in --out; evaluation of a saved checkpoint at any lengths.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "cli/distributed.h"
#include "cli/experiment_report.h"
#include "cli/progress.h"
#include "cli/run_metrics.h"
#include "cli/train_options.h"
#include "io/atomic_file.h"
#include "io/json_fields.h"
#include "io/run_directory_lock.h"
#include "tasks/task.h"
#include "train/run_limits.h"
#include "train/trainable_check.h"
#include "train/trainer.h"
#include "train/training_loop.h"
#include "util/error.h"
#include "util/threads.h"

namespace poslab::cli {

namespace {
// Files of a run directory that a new run would replace.
constexpr const char* kRunFiles[] = {"config.json", "metrics.jsonl", "checkpoint.pt",
                                     "summary.json"};

// Refuses to overwrite an earlier run in `dir` unless `force`.
void checkRunDirectory(const std::string& dir, bool force) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw InvalidArgument("--out " + dir + " exists and is not a directory");
  if (force) return;
  for (const char* name : kRunFiles)
    if (fs::exists(fs::path(dir) / name, ec))
      throw InvalidArgument("--out " + dir + " already holds a run (" + name + ")",
                            "pass --force to replace it, or choose another --out");
}

// Evaluation with a progress bar on stderr: at long lengths it takes minutes. A refusal by the
// evaluation budgets names `options`, the options that asked for it (empty: the run's config).
std::vector<EvalResult> evaluateShowingProgress(Trainer& trainer,
                                                const std::vector<long long>& lengths,
                                                long long sequences,
                                                const std::string& options = {}) {
  const long long perLength = sequences > 0 ? sequences : trainer.config().run.evalSequences;
  const Task& task = trainer.evalTask();
  // Sequence passes: kv-retrieval runs its sequences again at each distance point.
  std::vector<long long> before;  // passes of the lengths before each
  long long allPasses = 0;
  for (long long L : lengths) {
    before.push_back(allPasses);
    allPasses += evaluationPasses(task, L) * perLength;
  }
  ProgressBar bar("evaluation", allPasses);
  // Refusals before the bar's first line, so that they stay the only line on stderr.
  try {
    for (long long L : lengths) {
      if (L < task.minLength() || L > task.maxLength())
        return trainer.evaluate(lengths, sequences);  // throws, naming the task's range
      checkEvaluationFits(trainer.config(), trainer.vocabSize(), L,
                          evaluationPasses(task, L) * perLength);
    }
    checkEvaluationTotalFits(trainer.config(), task, lengths, perLength);
  } catch (const InvalidArgument& e) {
    if (options.empty()) throw;
    throw InvalidArgument(options + ": " + e.what());
  }
  bar.updateCount(0, "sequences");  // at once: the first batch of a long length takes a while
  auto r = trainer.evaluate(
      lengths, sequences, [&](size_t index, long long L, long long done, long long) {
        bar.updateCount(before[index] + done, "sequence passes (T = " + std::to_string(L) + ")");
      });
  bar.finish();
  return r;
}

// The learned position parameters: their mean over the layers, then with perLayer each layer's.
void printPositionParameters(const RunResult& r, long long layers) {
  auto print = [](const PositionParameters& p) {
    for (const auto& [name, values] : p) {
      std::cout << "  " << name << ":";
      for (double v : values) std::cout << " " << formatNumber(v, 4);
      std::cout << "\n";
    }
  };
  if (r.position.empty()) return;
  std::cout << "\nlearned position parameters (mean over " << layers
            << (layers == 1 ? " layer" : " layers")
            << (r.positionLayers.empty() && layers > 1 ? "; per layer with --per-layer" : "")
            << "):\n";
  print(r.position);
  for (size_t l = 0; l < r.positionLayers.size(); ++l) {
    std::cout << "\nlayer " << l << ":\n";
    print(r.positionLayers[l]);
  }
}

// The end of a finished run: the final evaluation if none was due, summary.json, and the table
// (or the JSON document) on stdout.
void reportRun(Trainer& trainer, const TrainConfig& cfg, std::vector<EvalResult> eval,
               const std::string& dir, const std::string& checkpoint, bool json, bool perLayer) {
  if (eval.empty()) eval = evaluateShowingProgress(trainer, cfg.run.evalLengths, 0);
  RunResult r;
  r.family = cfg.model.family;
  r.seed = cfg.run.seed;
  r.eval = eval;
  r.position = trainer.positionParametersMean();
  if (perLayer) r.positionLayers = trainer.positionParametersByLayer();
  r.pjLoo = trainer.pjOrderLoo(cfg.task.trainLength);
  setTeacherSpread(trainer, r);
  nlohmann::json doc = resultsJson(cfg.task.id, {r});
  doc["checkpoint"] = checkpoint;
  doc["threads"] = intraOpThreads();
  writeFileAtomically(dir + "/summary.json", [&](std::ostream& os) { os << doc.dump(2) << "\n"; });
  if (json) return printJson(doc);
  printResultsTable({r}, makeTask(cfg.task)->hasAccuracy());
  printPositionParameters(r, cfg.model.layers);
  if (!r.pjLoo.empty()) {
    std::cout << "\nleave-one-order-out (task-loss increase at T = " << cfg.task.trainLength
              << "):\n";
    for (const auto& l : r.pjLoo)
      std::cout << "  " << l.sector << l.order << ": " << formatNumber(l.lossIncrease, 4) << "\n";
  }
  std::cout << "\nrun directory: " << dir << " (config.json, metrics.jsonl, checkpoint.pt)\n";
}

// The run to train: a new one, or with --resume the one whose checkpoint is in `dir`. A process
// that writes holds `lock` on `dir` from before its first check of the directory's files.
std::unique_ptr<Trainer> startRun(const TrainConfig& cfg, const std::string& dir, bool resume,
                                  bool force, bool writes,
                                  std::unique_ptr<RunDirectoryLock>& lock) {
  namespace fs = std::filesystem;
  auto takeLock = [&] {
    if (writes && !lock) lock = std::make_unique<RunDirectoryLock>(dir, "--out");
  };
  if (!resume) {
    std::error_code ec;
    if (fs::is_directory(dir, ec)) takeLock();  // a new directory is created once the run builds
    if (writes) checkRunDirectory(dir, force);
    auto trainer = std::make_unique<Trainer>(cfg);
    takeLock();
    if (writes) {
      checkRunDirectory(dir, force);  // again under the lock
      clearPendingLine(dir);          // an earlier run's, replaced with --force
    }
    return trainer;
  }
  if (fs::is_directory(dir)) takeLock();
  const std::string checkpoint = dir + "/checkpoint.pt";
  if (!std::filesystem::exists(checkpoint))
    throw InvalidArgument("--resume: " + dir + " holds no checkpoint.pt",
                          "give the --out of the run to continue");
  auto trainer = Trainer::fromCheckpoint(checkpoint);
  if (!cfg.model.family.empty() && trainer->config().model.family != cfg.model.family)
    throw InvalidArgument("--resume: the run in " + dir + " trains " +
                          trainer->config().model.family + ", not --family " + cfg.model.family);
  return trainer;
}
}  // namespace

void addTrainCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("train", "train a tiny transformer with one position family");
  struct Opts {
    TrainOptions t;
    std::string family;
    std::string out;
    bool force = false;
    bool resume = false;
    bool perLayer = false;
    long long stopAfter = 0;
    DistOptions dist;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--family", o->family,
                  "position family id (required, except with --resume: the run's own)");
  cmd->add_option("--out", o->out, "run directory (default out/train/TASK-FAMILY-sSEED)");
  cmd->add_flag("--force", o->force,
                "replace the run already in --out (its config, metrics and checkpoint)");
  cmd->add_flag("--resume", o->resume,
                "continue the run in --out from its checkpoint (its own config; the training "
                "options are not used)");
  cmd->add_flag("--per-layer", o->perLayer,
                "report the learned position parameters of each layer too (default: their mean "
                "over the layers)");
  cmd->add_option("--stop-after", o->stopAfter,
                  "stop after this many steps of the run, with its checkpoint saved (continue "
                  "with --resume)")
      ->check(integerIn(1, kMaxTrainSteps));
  addDistOptions(cmd, o->dist);
  addTrainOptions(cmd, o->t);
  cmd->callback([o] {
    if (o->resume && o->out.empty())
      throw InvalidArgument("--resume needs --out, the run directory to continue");
    if (!o->resume && o->family.empty()) throw InvalidArgument("--family is required");
    // With --resume the run's own config is used: the training options are not read.
    TrainConfig cfg;
    cfg.model.family = o->family;
    if (!o->resume) {
      cfg = buildTrainConfig(o->t, o->family);
      checkTrainable(cfg, trainOptionsSource(o->t));
    }
    const std::string dir = o->out.empty() ? "out/train/" + cfg.task.id + "-" + cfg.model.family +
                                                 "-s" + std::to_string(cfg.run.seed)
                                           : o->out;
    // Under torchrun or srun: every rank trains its share of each batch; rank 0 alone writes.
    const std::unique_ptr<dist::DistGroup> group =
        joinLaunch(o->dist, o->resume ? 0 : cfg.optim.batch);
    const bool writes = !group || group->rank() == 0;
    runReportingFailure(group.get(), [&] {
      std::unique_ptr<RunDirectoryLock> lock;
      std::unique_ptr<Trainer> run = startRun(cfg, dir, o->resume, o->force, writes, lock);
      Trainer& trainer = *run;
      cfg = trainer.config();
      if (group) {
        group->agree("training config",
                     nlohmann::json(cfg).dump() + "@" + std::to_string(trainer.stepCount()));
        trainer.setDataParallel(group.get());
      }
      const std::string checkpoint = dir + "/checkpoint.pt";
      std::ofstream metrics;
      if (writes) {
        std::filesystem::create_directories(dir);
        writeFileAtomically(dir + "/config.json",
                            [&](std::ostream& os) { os << nlohmann::json(cfg).dump(2) << "\n"; });
        std::optional<nlohmann::json> missing;
        if (o->resume) {
          missing = missingLineOf(dir, trainer.stepCount());
          truncateMetrics(dir + "/metrics.jsonl", trainer.stepCount());
        }
        metrics.open(dir + "/metrics.jsonl", o->resume ? std::ios::app : std::ios::trunc);
        if (missing) {  // killed between the checkpoint and its line: the line from the checkpoint
          if (isEvaluationStep(cfg.run, trainer.stepCount()))
            (*missing)["eval"] = evalJson(trainer.evaluate(cfg.run.evalLengths));
          metrics << missing->dump() << "\n" << std::flush;
        }
        clearPendingLine(dir);
        std::cerr << (o->resume ? "Resuming " : "Training ") << cfg.model.family << " on "
                  << cfg.task.id << " (T = " << cfg.task.trainLength << ", "
                  << trainer.parameterCount() << " parameters, " << trainer.deviceName() << ", "
                  << intraOpThreads() << (intraOpThreads() == 1 ? " thread" : " threads")
                  << (group ? ", " + std::to_string(group->worldSize()) + " processes" : "")
                  << (o->resume ? ", from step " + std::to_string(trainer.stepCount()) : "")
                  << ") -> " << dir << "\n";
      }
      std::unique_ptr<ProgressBar> bar;
      if (writes) bar = std::make_unique<ProgressBar>(cfg.model.family, cfg.run.steps);
      std::vector<EvalResult> eval;
      bool barFinished = false, stopped = false;
      TrainingCallbacks callbacks;
      callbacks.onStep = [&](const Snapshot& snap) {
        if (bar) bar->update(snap);
        return true;
      };
      callbacks.evaluate = [&](Trainer& t, Snapshot& snap) {
        if (writes) {
          // The checkpoint first: a kill during a long evaluation keeps the trained model. The
          // line before it, pending (run_metrics.h): a kill after it loses no metrics line.
          writePendingLine(dir, metricsLine(snap));
          t.saveCheckpoint(checkpoint);  // the last good checkpoint
          if (isFinalStep(cfg.run, snap.step)) {
            bar->finish();
            barFinished = true;
            snap.eval = evaluateShowingProgress(t, cfg.run.evalLengths, 0);
          } else {
            snap.eval = t.evaluate(cfg.run.evalLengths);
          }
        }
        // The other ranks wait for rank 0's evaluation (as long as its heartbeat goes on).
        if (group) group->barrier("evaluation/" + std::to_string(snap.step));
      };
      callbacks.onSnapshot = [&](const Snapshot& snap) {
        if (writes) {
          nlohmann::json line = metricsLine(snap);
          if (!snap.eval.empty()) {
            eval = snap.eval;
            line["eval"] = evalJson(eval);
          }
          metrics << line.dump() << "\n" << std::flush;
          if (!metrics) throw Error("cannot write " + dir + "/metrics.jsonl");
          clearPendingLine(dir);
        }
        if (o->stopAfter > 0 && snap.step >= o->stopAfter && !isFinalStep(cfg.run, snap.step)) {
          if (writes && snap.eval.empty()) trainer.saveCheckpoint(checkpoint);
          stopped = true;
          return false;
        }
        return true;
      };
      const TrainingResult trained = runTraining(trainer, callbacks);
      if (bar && !barFinished) bar->finish();
      if (trained.outcome == TrainingOutcome::Diverged) {
        throw Error(trained.last.message, std::filesystem::exists(checkpoint)
                                              ? "the last good checkpoint is " + checkpoint
                                              : "no checkpoint was written before it");
      }
      if (group) group->leave();
      if (!writes) return;
      if (stopped) {
        std::cerr << "stopped after step " << trainer.stepCount() << " of " << cfg.run.steps
                  << ": continue with --resume --out " << dir << "\n";
        return;
      }
      reportRun(trainer, cfg, eval, dir, checkpoint, o->t.common.json, o->perLayer);
    });
  });
}

void addEvalCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("eval", "evaluate a checkpoint at any lengths");
  struct Opts {
    std::string checkpoint;
    std::string lengths;
    long long sequences = 0;
    bool json = false;
    bool perLayer = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--checkpoint", o->checkpoint, "checkpoint.pt of a run")->required();
  cmd->add_option("--lengths", o->lengths, "comma-separated lengths (default: the run's)");
  cmd->add_option("--eval-sequences", o->sequences, "sequences per length (default: the run's)")
      ->check(integerIn(1, 1LL << 30));
  cmd->add_flag("--json", o->json, "print one JSON document on stdout");
  cmd->add_flag("--per-layer", o->perLayer,
                "report the learned position parameters of each layer too (default: their mean "
                "over the layers)");
  cmd->callback([o] {
    auto trainer = Trainer::fromCheckpoint(o->checkpoint);
    auto lengths = o->lengths.empty() ? trainer->config().run.evalLengths
                                      : parseLengthList(o->lengths, "--lengths");
    RunResult r;
    r.family = trainer->config().model.family;
    r.seed = trainer->config().run.seed;
    std::string options = o->lengths.empty() ? "" : "--lengths " + o->lengths;
    if (o->sequences > 0)
      options += std::string(options.empty() ? "" : " ") + "--eval-sequences " +
                 std::to_string(o->sequences);
    r.eval = evaluateShowingProgress(*trainer, lengths, o->sequences, options);
    r.position = trainer->positionParametersMean();
    if (o->perLayer) r.positionLayers = trainer->positionParametersByLayer();
    setTeacherSpread(*trainer, r);
    if (o->json) return printJson(resultsJson(trainer->config().task.id, {r}));
    std::cout << "Checkpoint " << o->checkpoint << ": " << r.family << " on "
              << trainer->config().task.id << ", step " << trainer->stepCount() << "\n\n";
    printResultsTable({r}, makeTask(trainer->config().task)->hasAccuracy());
    printPositionParameters(r, trainer->config().model.layers);
  });
}

}  // namespace poslab::cli
