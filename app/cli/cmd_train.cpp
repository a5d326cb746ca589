// `poslab-cli train` and `poslab-cli eval`: one run with a progress bar, JSONL metrics, config and
// checkpoint in --out; evaluation of a saved checkpoint at any lengths.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/experiment_report.h"
#include "cli/progress.h"
#include "cli/train_options.h"
#include "io/atomic_file.h"
#include "io/json_fields.h"
#include "tasks/task.h"
#include "train/run_limits.h"
#include "train/trainable_check.h"
#include "train/trainer.h"
#include "train/training_loop.h"
#include "util/error.h"

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

// Evaluation with a progress bar on stderr: at long lengths it takes minutes.
std::vector<EvalResult> evaluateShowingProgress(Trainer& trainer,
                                                const std::vector<long long>& lengths,
                                                long long sequences) {
  const long long perLength = sequences > 0 ? sequences : trainer.config().run.evalSequences;
  ProgressBar bar("evaluation", perLength * static_cast<long long>(lengths.size()));
  long long index = -1, current = -1;
  // Refusals before the bar's first line, so that they stay the only line on stderr.
  for (long long L : lengths) {
    if (L >= trainer.evalTask().minLength() && L <= trainer.evalTask().maxLength())
      checkEvaluationFits(trainer.config(), trainer.vocabSize(), L, perLength);
    else
      return trainer.evaluate(lengths, sequences);  // throws, naming the task's range
  }
  bar.updateCount(0, "sequences");  // at once: the first batch of a long length takes a while
  auto r = trainer.evaluate(lengths, sequences, [&](long long L, long long done, long long) {
    if (L != current) ++index, current = L;
    bar.updateCount(index * perLength + done, "sequences (T = " + std::to_string(L) + ")");
  });
  bar.finish();
  return r;
}
}  // namespace

void addTrainCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("train", "train a tiny transformer with one position family");
  struct Opts {
    TrainOptions t;
    std::string family;
    std::string out;
    bool force = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--family", o->family, "position family id")->required();
  cmd->add_option("--out", o->out, "run directory (default out/train/TASK-FAMILY-sSEED)");
  cmd->add_flag("--force", o->force,
                "replace the run already in --out (its config, metrics and checkpoint)");
  addTrainOptions(cmd, o->t);
  cmd->callback([o] {
    TrainConfig cfg = buildTrainConfig(o->t, o->family);
    checkTrainable(cfg, trainOptionsSource(o->t));
    const std::string dir = o->out.empty() ? "out/train/" + cfg.task.id + "-" + cfg.model.family +
                                                 "-s" + std::to_string(cfg.run.seed)
                                           : o->out;
    checkRunDirectory(dir, o->force);
    Trainer trainer(cfg);
    cfg = trainer.config();
    std::filesystem::create_directories(dir);
    writeFileAtomically(dir + "/config.json",
                        [&](std::ostream& os) { os << nlohmann::json(cfg).dump(2) << "\n"; });
    std::ofstream metrics(dir + "/metrics.jsonl", std::ios::trunc);
    std::cerr << "Training " << cfg.model.family << " on " << cfg.task.id
              << " (T = " << cfg.task.trainLength << ", " << trainer.parameterCount()
              << " parameters, " << trainer.deviceName() << ") -> " << dir << "\n";
    ProgressBar bar(cfg.model.family, cfg.run.steps);
    const std::string checkpoint = dir + "/checkpoint.pt";
    std::vector<EvalResult> eval;
    bool barFinished = false;
    TrainingCallbacks callbacks;
    callbacks.onStep = [&](const Snapshot& snap) {
      bar.update(snap);
      return true;
    };
    callbacks.evaluate = [&](Trainer& t, Snapshot& snap) {
      // The checkpoint first: a kill during a long evaluation keeps the trained model.
      t.saveCheckpoint(checkpoint);  // the last good checkpoint
      if (isFinalStep(cfg.run, snap.step)) {
        bar.finish();
        barFinished = true;
        snap.eval = evaluateShowingProgress(t, cfg.run.evalLengths, 0);
      } else {
        snap.eval = t.evaluate(cfg.run.evalLengths);
      }
    };
    callbacks.onSnapshot = [&](const Snapshot& snap) {
      nlohmann::json line{{"step", snap.step},
                          {"loss", snap.loss},
                          {"lr", snap.lr},
                          {"grad_norm", snap.gradNorm},
                          {"tokens_per_s", snap.tokensPerSecond},
                          {"position", snap.position}};
      if (!std::isnan(snap.accuracy)) line["accuracy"] = snap.accuracy;
      if (!snap.eval.empty()) {
        eval = snap.eval;
        line["eval"] = evalJson(eval);
      }
      metrics << line.dump() << "\n" << std::flush;
      return true;
    };
    const TrainingResult trained = runTraining(trainer, callbacks);
    if (!barFinished) bar.finish();
    if (trained.outcome == TrainingOutcome::Diverged) {
      throw Error(trained.last.message, std::filesystem::exists(checkpoint)
                                            ? "the last good checkpoint is " + checkpoint
                                            : "no checkpoint was written before it");
    }
    if (eval.empty()) eval = evaluateShowingProgress(trainer, cfg.run.evalLengths, 0);
    RunResult r;
    r.family = cfg.model.family;
    r.seed = cfg.run.seed;
    r.eval = eval;
    r.position = trainer.positionParameters(0);
    r.pjLoo = trainer.pjOrderLoo(cfg.task.trainLength);
    nlohmann::json doc = resultsJson(cfg.task.id, {r});
    doc["checkpoint"] = checkpoint;
    writeFileAtomically(dir + "/summary.json",
                        [&](std::ostream& os) { os << doc.dump(2) << "\n"; });
    if (o->t.common.json) return printJson(doc);
    printResultsTable({r}, makeTask(cfg.task)->hasAccuracy());
    if (!r.position.empty()) {
      std::cout << "\nlearned position parameters (layer 0):\n";
      for (const auto& [name, values] : r.position) {
        std::cout << "  " << name << ":";
        for (double v : values) std::cout << " " << formatNumber(v, 4);
        std::cout << "\n";
      }
    }
    if (!r.pjLoo.empty()) {
      std::cout << "\nleave-one-order-out (task-loss increase at T = " << cfg.task.trainLength
                << "):\n";
      for (const auto& l : r.pjLoo)
        std::cout << "  " << l.sector << l.order << ": " << formatNumber(l.lossIncrease, 4) << "\n";
    }
    std::cout << "\nrun directory: " << dir << " (config.json, metrics.jsonl, checkpoint.pt)\n";
  });
}

void addEvalCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("eval", "evaluate a checkpoint at any lengths");
  struct Opts {
    std::string checkpoint;
    std::string lengths;
    long long sequences = 0;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--checkpoint", o->checkpoint, "checkpoint.pt of a run")->required();
  cmd->add_option("--lengths", o->lengths, "comma-separated lengths (default: the run's)");
  cmd->add_option("--eval-sequences", o->sequences, "sequences per length (default: the run's)")
      ->check(integerIn(1, 1LL << 30));
  cmd->add_flag("--json", o->json, "print one JSON document on stdout");
  cmd->callback([o] {
    auto trainer = Trainer::fromCheckpoint(o->checkpoint);
    auto lengths = o->lengths.empty() ? trainer->config().run.evalLengths
                                      : parseLengthList(o->lengths, "--lengths");
    RunResult r;
    r.family = trainer->config().model.family;
    r.seed = trainer->config().run.seed;
    r.eval = evaluateShowingProgress(*trainer, lengths, o->sequences);
    r.position = trainer->positionParameters(0);
    if (o->json) return printJson(resultsJson(trainer->config().task.id, {r}));
    std::cout << "Checkpoint " << o->checkpoint << ": " << r.family << " on "
              << trainer->config().task.id << ", step " << trainer->stepCount() << "\n\n";
    printResultsTable({r}, makeTask(trainer->config().task)->hasAccuracy());
  });
}

}  // namespace poslab::cli
