// `poslab-cli response --checkpoint FILE --length N`: what a trained kernel-lm / sector-teacher
// model learned, lag by lag (flip one bit, watch the answer's margin), next to the task's kernel.
#include <algorithm>
#include <cmath>
#include <iostream>

#include "cli/cli_common.h"
#include "cli/progress.h"
#include "io/atomic_file.h"
#include "limits/work_budget.h"
#include "train/lag_response.h"
#include "train/trainer.h"
#include "util/error.h"

namespace poslab::cli {

namespace {

nlohmann::json numberOrNull(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

}  // namespace

void addResponseCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "response",
      "a trained bits-then-QUERY model's response to each lag, next to the task's kernel");
  struct Opts {
    std::string checkpoint;
    long long length = 0;
    long long samples = 16;
    long long lags = 128;
    std::string csv;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--checkpoint", o->checkpoint,
                  "checkpoint.pt of a kernel-lm or sector-teacher run")
      ->required();
  cmd->add_option("--length", o->length, "probe length T (default: 8x the training length)")
      ->check([](const std::string& v) {
        return !v.empty() && v[0] != '-' && v != "0" ? std::string()
                                                     : "'" + v + "' must be a length >= 2";
      });
  cmd->add_option("--samples", o->samples, "sequences averaged over")
      ->capture_default_str()
      ->check(integerIn(1, 1LL << 20));
  // Two at least: the spread's two ends, lag 1 and lag T-1.
  cmd->add_option("--lags", o->lags, "at most this many lags, evenly spread over [1, T-1]")
      ->capture_default_str()
      ->check(integerIn(2, 1LL << 20));
  cmd->add_option("--csv", o->csv, "write lag,response,target to this CSV file");
  cmd->add_flag("--json", o->json, "print one JSON document on stdout");
  cmd->callback([o] {
    auto trainer = Trainer::fromCheckpoint(o->checkpoint);
    const long long trainLength = trainer->config().task.trainLength;
    const long long length = o->length > 0 ? o->length : 8 * trainLength;
    // Each sample is (lags + 1) forward passes of `length` tokens (lagResponseCost).
    checkLagResponseRequest(trainer->inspected(), length, o->samples, o->lags);
    checkWorkFits(lagResponseCost(trainer->inspected(), length, o->samples, o->lags),
                  "--length " + std::to_string(length) + " with --samples " +
                      std::to_string(o->samples) + " and --lags " + std::to_string(o->lags));
    // Each sequence costs (lags + 1) forward passes of `length` tokens: minutes at long lengths.
    ProgressBar bar("response", o->samples);
    const LagResponse r = measureLagResponse(trainer->inspected(), length, o->samples, o->lags,
                                             [&](long long done, long long) {
                                               bar.updateCount(done, "sequences");
                                               return true;
                                             });
    bar.finish();
    const LagResponseSummary summary = summarizeLagResponse(r);
    const double all = summary.cosineAll, inside = summary.cosineTrained,
                 beyond = summary.cosineBeyond;
    if (!o->csv.empty()) {
      writeFileAtomically(o->csv, [&](std::ostream& os) {
        os.precision(10);
        os << "lag,response,target\n";
        for (size_t i = 0; i < r.lags.size(); ++i)
          os << r.lags[i] << "," << r.response[i] << "," << r.target[i] << "\n";
      });
    }
    if (o->json) {
      return printJson({{"family", trainer->config().model.family},
                        {"task", trainer->config().task.id},
                        {"seed", trainer->config().run.seed},
                        {"length", r.length},
                        {"train_length", r.trainLength},
                        {"samples", r.samples},
                        {"cosine", numberOrNull(all)},
                        {"cosine_trained_lags", numberOrNull(inside)},
                        {"cosine_beyond", numberOrNull(beyond)},
                        {"implied_accuracy", numberOrNull(summary.impliedAccuracy)},
                        {"lags", r.lags},
                        {"response", r.response},
                        {"target", r.target}});
    }
    std::cout << "Lag response of " << trainer->config().model.family << " on "
              << trainer->config().task.id << " (checkpoint " << o->checkpoint << ", step "
              << trainer->stepCount() << "), T = " << length << ", " << r.samples << " samples, "
              << r.lags.size() << " lags\n"
              << "cosine with the task's kernel, all lags 1.." << length - 1 << ": "
              << formatNumber(all, 3) << "  (a linear readout with this kernel would label "
              << formatNumber(summary.impliedAccuracy, 3) << " of length-" << length
              << " sequences correctly)\n";
    // The split at the training length, where the probe reaches past it (at T = 2 it printed
    // "the trained lags 1..15" and "the lags beyond, 16..1").
    if (length > trainLength)
      std::cout << "  over the trained lags 1.." << trainLength - 1 << ": "
                << formatNumber(inside, 3) << "\n"
                << "  over the lags beyond, " << trainLength << ".." << length - 1 << ": "
                << formatNumber(beyond, 3) << "\n";
    else
      std::cout << "  (every lag of T = " << length << " is within the training length "
                << trainLength << ")\n";
    if (!o->csv.empty()) std::cout << "wrote " << o->csv << "\n";
  });
}

}  // namespace poslab::cli
