// Options shared by `train` and `compare`, and how they become a TrainConfig.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "cli/cli_common.h"
#include "io/json_fields.h"
#include "train/train_config.h"

namespace poslab::cli {

struct TrainOptions {
  CommonOptions common;  // --set (family parameters), --json
  std::string task;
  std::vector<std::string> taskSets;  // --task-set NAME=VALUE
  std::string kernel;
  std::string text;
  long long trainLength = 0;      // 0: the task's default
  long long minTrainLength = -1;  // -1: keep the config's; 0: fixed length; else [min, T] per step
  long long steps = 500;
  uint64_t seed = 0;
  std::string evalLengths;  // "a,b,c"
  long long evalEvery = 100;
  long long evalSequences = 64;
  long long evalData = -1;  // -1: keep the config's (0); else run.eval_data
  double lr = 3e-3;
  long long batch = 32;
  double positionLr = 1;
  long long dModel = 64, heads = 4, layers = 2;
  std::vector<std::string> pins;
  std::string device = "auto";
  bool recomputeActivations = false;  // run.recompute_activations (also with --config)
  std::string attention;              // run.attention (also with --config); empty: keep it
  long long metricsEvery = 0;         // run.metrics_every (also with --config); 0: keep it
  std::string configFile;             // a TrainConfig JSON to start from
  std::string architecture;           // train/architecture.h id applied after --config; empty: none
};

void addTrainOptions(CLI::App* cmd, TrainOptions& o);
// The config for one family (compare replaces model.family per run).
TrainConfig buildTrainConfig(const TrainOptions& o, const std::string& family);
// Where checkTrainable's messages say the config came from: "--config 'FILE'" when one was given
// (its field paths, "task.kernel"), else no source (the fields the options set).
JsonPath trainOptionsSource(const TrainOptions& o);
std::vector<long long> parseLengthList(const std::string& text, const std::string& what);
// "0,1,2" -> {0, 1, 2}: non-negative 64-bit seeds; throws InvalidArgument naming `what`.
std::vector<uint64_t> parseSeedList(const std::string& text, const std::string& what);
std::vector<std::string> parseNameList(const std::string& text);

}  // namespace poslab::cli
