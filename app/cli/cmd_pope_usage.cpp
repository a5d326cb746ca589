// `poslab-cli pope-usage --checkpoint FILE`: how much of each layer's attention score each
// frequency carries in a trained PoPE or RoPE model (MATH 4.6; the PoPE paper compares the two),
// on sequences of the run's own task.
#include <cmath>
#include <iostream>

#include "analysis/pope_frequency_usage.h"
#include "cli/cli_common.h"
#include "train/trainer.h"
#include "util/error.h"

namespace poslab::cli {

namespace {

nlohmann::json numberOrNull(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

nlohmann::json numbersJson(const std::vector<double>& values) {
  nlohmann::json out = nlohmann::json::array();
  for (double v : values) out.push_back(numberOrNull(v));
  return out;
}

nlohmann::json gridJson(const std::vector<std::vector<double>>& rows) {  // [head][c]
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rows) out.push_back(numbersJson(r));
  return out;
}

}  // namespace

void addPopeUsageCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "pope-usage",
      "a trained PoPE or RoPE model's share of the attention score carried by each frequency");
  struct Opts {
    std::string checkpoint;
    long long length = 0;
    long long sequences = 16;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--checkpoint", o->checkpoint, "checkpoint.pt of a PoPE or RoPE run")->required();
  cmd->add_option("--length", o->length, "sequence length T (default: the training length)")
      ->check(integerIn(1, 1LL << 20));
  cmd->add_option("--sequences", o->sequences, "sequences of the task averaged over")
      ->capture_default_str()
      ->check(integerIn(1, 4096));
  cmd->add_flag("--json", o->json, "print one JSON document on stdout");
  cmd->callback([o] {
    auto trainer = Trainer::fromCheckpoint(o->checkpoint);
    const TrainConfig& cfg = trainer->config();
    try {
      requireFrequencyUsageFamily(cfg.model.family);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument("checkpoint '" + o->checkpoint + "': " + e.what());
    }
    const long long length = o->length > 0 ? o->length : cfg.task.trainLength;
    const PopeFrequencyUsage u = popeFrequencyUsage(trainer->inspected(), length, o->sequences);
    if (o->json) {
      nlohmann::json layers = nlohmann::json::array();
      for (size_t l = 0; l < u.usage.size(); ++l)
        layers.push_back({{"layer", l + 1},
                          {"usage", numbersJson(u.layerUsage[l])},
                          {"effective_frequencies", numberOrNull(u.layerEffectiveFrequencies[l])},
                          {"head_usage", gridJson(u.usage[l])},
                          {"query_magnitude", gridJson(u.queryMagnitude[l])},
                          {"key_magnitude", gridJson(u.keyMagnitude[l])},
                          {"amplitude", gridJson(u.amplitude[l])}});
      return printJson({{"family", u.family},
                        {"task", cfg.task.id},
                        {"seed", cfg.run.seed},
                        {"step", trainer->stepCount()},
                        {"length", u.length},
                        {"train_length", cfg.task.trainLength},
                        {"sequences", u.sequences},
                        {"head_dim", u.headDim},
                        {"theta", u.theta},
                        {"layers", layers}});
    }
    std::cout << "Frequency usage (" << cfg.model.family << ") on " << cfg.task.id
              << " (checkpoint " << o->checkpoint << ", step " << trainer->stepCount()
              << "), T = " << u.length << ", " << u.sequences << " sequences\n"
              << "usage: frequency c's share of the mean amplitude mu_q mu_k of the score over "
                 "causal pairs (sums to 1 per head)\n";
    for (size_t l = 0; l < u.usage.size(); ++l) {
      const auto& heads = u.usage[l];
      std::cout << "\nlayer " << l + 1 << ": " << formatNumber(u.layerEffectiveFrequencies[l], 3)
                << " effective frequencies of " << u.headDim << " (exp of the usage entropy)\n";
      std::vector<std::string> header{"c", "theta_c", "usage"};
      for (size_t h = 0; h < heads.size(); ++h) header.push_back("head " + std::to_string(h + 1));
      std::vector<std::vector<std::string>> rows;
      for (size_t c = 0; c < u.theta.size(); ++c) {
        std::vector<std::string> row{std::to_string(c), formatNumber(u.theta[c], 4),
                                     formatNumber(u.layerUsage[l][c], 4)};
        for (const auto& h : heads) row.push_back(formatNumber(h[c], 4));
        rows.push_back(std::move(row));
      }
      printTable(header, rows);
    }
  });
}

}  // namespace poslab::cli
