// `poslab-cli train` and `poslab-cli eval`: one run with a progress bar, JSONL metrics, config and
// checkpoint in --out; evaluation of a saved checkpoint at any lengths.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/experiment_report.h"
#include "cli/progress.h"
#include "cli/train_options.h"
#include "io/atomic_file.h"
#include "tasks/task.h"
#include "train/trainer.h"
#include "util/error.h"

namespace poslab::cli {

void addTrainCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("train", "train a tiny transformer with one position family");
  struct Opts {
    TrainOptions t;
    std::string family;
    std::string out;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--family", o->family, "position family id")->required();
  cmd->add_option("--out", o->out, "run directory (default out/train/TASK-FAMILY-sSEED)");
  addTrainOptions(cmd, o->t);
  cmd->callback([o] {
    TrainConfig cfg = buildTrainConfig(o->t, o->family);
    Trainer trainer(cfg);
    cfg = trainer.config();
    const std::string dir = o->out.empty() ? "out/train/" + cfg.task.id + "-" + cfg.model.family +
                                                 "-s" + std::to_string(cfg.run.seed)
                                           : o->out;
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
    std::string diverged;
    for (long long s = trainer.stepCount(); s < cfg.run.steps; ++s) {
      Snapshot snap;
      try {
        snap = trainer.step();
      } catch (const DivergedError& e) {
        diverged = e.what();
        break;
      }
      bar.update(snap);
      nlohmann::json line{{"step", snap.step},
                          {"loss", snap.loss},
                          {"lr", snap.lr},
                          {"grad_norm", snap.gradNorm},
                          {"tokens_per_s", snap.tokensPerSecond},
                          {"position", snap.position}};
      if (!std::isnan(snap.accuracy)) line["accuracy"] = snap.accuracy;
      const bool last = snap.step == cfg.run.steps;
      if (last || (cfg.run.evalEvery > 0 && snap.step % cfg.run.evalEvery == 0)) {
        eval = trainer.evaluate(cfg.run.evalLengths);
        line["eval"] = evalJson(eval);
        trainer.saveCheckpoint(checkpoint);  // the last good checkpoint
      }
      metrics << line.dump() << "\n" << std::flush;
    }
    bar.finish();
    if (!diverged.empty()) {
      throw Error(diverged, std::filesystem::exists(checkpoint)
                                ? "the last good checkpoint is " + checkpoint
                                : "no checkpoint was written before it");
    }
    if (eval.empty()) eval = trainer.evaluate(cfg.run.evalLengths);
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
  cmd->add_option("--eval-sequences", o->sequences, "sequences per length (default: the run's)");
  cmd->add_flag("--json", o->json, "print one JSON document on stdout");
  cmd->callback([o] {
    auto trainer = Trainer::fromCheckpoint(o->checkpoint);
    auto lengths = o->lengths.empty() ? trainer->config().run.evalLengths
                                      : parseLengthList(o->lengths, "--lengths");
    RunResult r;
    r.family = trainer->config().model.family;
    r.seed = trainer->config().run.seed;
    r.eval = trainer->evaluate(lengths, o->sequences);
    r.position = trainer->positionParameters(0);
    if (o->json) return printJson(resultsJson(trainer->config().task.id, {r}));
    std::cout << "Checkpoint " << o->checkpoint << ": " << r.family << " on "
              << trainer->config().task.id << ", step " << trainer->stepCount() << "\n\n";
    printResultsTable({r}, makeTask(trainer->config().task)->hasAccuracy());
  });
}

}  // namespace poslab::cli
