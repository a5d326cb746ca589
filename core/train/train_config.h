// One plain config struct per concern (model: model_config.h, task: tasks/task.h, here the
// optimiser/schedule and the run), all serialised together as TrainConfig with every run and
// checkpoint.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "model/attention_path.h"
#include "model/model_config.h"
#include "tasks/task_config.h"

namespace poslab {

struct JsonPath;  // io/json_fields.h
template <class S>
struct JsonField;  // io/json_fields.h

// RunConfig::metricsEvery's default: POSLAB_METRICS_EVERY=n (n > 1, read each time a RunConfig is
// made), else 1. Unset, 1, 0, negative or not a number: 1.
long long defaultMetricsEvery();

// Every key, its type, limits and meaning is one row of a table in train_config.cpp (task, optim,
// run) or model_config.cpp (model); docs/SESSIONS.md lists them.
struct OptimConfig {
  double lr = 3e-3;                 // peak learning rate of AdamW
  double weightDecay = 0.01;        // decoupled (AdamW), on the parameters `decay` names
  std::string decay = "matrices";   // "matrices" (not norms, biases, position parameters) or "all"
  std::string schedule = "cosine";  // after the warm-up: "cosine" to minLrRatio * lr, "constant"
  double beta1 = 0.9;               // AdamW betas
  double beta2 = 0.98;
  long long warmup = 50;       // linear warm-up steps, then cosine decay
  double minLrRatio = 0.1;     // final lr = minLrRatio * lr
  double gradClip = 1.0;       // global gradient-norm clip; 0: none
  long long batch = 32;        // sequences per step
  double positionLrScale = 1;  // position parameters (gamma, eta, gates, ...) train at lr * this
};

struct RunConfig {
  uint64_t seed = 0;                   // model init and data; same seed = same run
  long long steps = 500;               // optimisation steps
  std::vector<long long> evalLengths;  // e.g. {64, 256, 1024}; empty: {train length}
  // Evaluate at evalLengths after every step number that is a multiple of this (counted from
  // the run's start, across a resume) and always after the last step; 0: only after the last.
  // E.g. steps 10, evalEvery 4: after steps 4, 8, 10. isEvaluationStep (training_loop.h) is the
  // one place that decides it, for the CLI, the experiment runner and the GUI alike.
  long long evalEvery = 100;
  long long evalSequences = 64;          // sequences per evaluation length
  long long evalTokensPerBatch = 16384;  // batch size at length T: max(1, this / T)
  // Which set of evaluation sequences: 0 the one every earlier run and tuning used; any other
  // value an independent, equally reproducible set (a results protocol's held-out evaluation).
  uint64_t evalData = 0;
  std::string device = "auto";  // "auto" (CUDA if available), "cpu", "cuda"
  // Keep only each block's input during a training forward and run the block again in the
  // backward (TinyTransformer::recomputeBlocks): the same values and gradients, peak memory of
  // about one block's activations instead of every block's, about a third more compute per step.
  bool recomputeActivations = false;
  // The attention code every forward pass runs (model/attention_path.h): "fused", "reference",
  // "fused-direct", or "sdpa" where LibTorch has it. The paths agree up to float rounding, so a
  // run's numbers depend on it. Default: POSLAB_ATTENTION where it names one, else "fused".
  std::string attention = defaultAttentionPathName();
  // Read the step's metrics (loss, accuracy, gradient norm, position parameters) back to the host
  // every this many steps and at the last step; the steps between queue their GPU work without
  // waiting and report NaN (trainer.cpp). The training itself does not depend on it. Default:
  // POSLAB_METRICS_EVERY where it is a whole number above 1, else 1 (every step).
  long long metricsEvery = defaultMetricsEvery();
};

struct TrainConfig {
  ModelConfig model;
  TaskConfig task;
  OptimConfig optim;
  RunConfig run;
  // Throws InvalidArgument naming the bad field ("optim.lr"; with `at`, the path below it, e.g.
  // "config.optim.lr" and at's source): each field within its table's limits (the same as when
  // read), and the checks across fields.
  void validate() const;
  void validate(const JsonPath& at) const;
  // Only the first part: each field within its table's limits, as readTrainConfig checks a file
  // (no checks across fields: those wait for the run to be built, as for a file).
  void checkFields(const JsonPath& at) const;
};

// Strict reading: an object with the keys "model", "task", "optim", "run", each an object of known
// keys whose values have the right type and lie within the limits; absent keys keep out's value.
// Throws InvalidArgument naming at.source and the key path ("config.model.d_model").
void readTrainConfig(const nlohmann::json& j, const JsonPath& at, TrainConfig& out);
// A TrainConfig JSON file (`train --config`, a run's config.json): readJsonFile then
// readTrainConfig; `what` names it in messages ("--config").
TrainConfig readTrainConfigFile(const std::string& path, const std::string& what);

// The key tables themselves (train_config.cpp): each field's key, limits and meaning, for a front
// end that shows the fields (the training form takes its ranges from them: jsonFieldOf).
const std::vector<JsonField<TaskConfig>>& taskConfigFields();
const std::vector<JsonField<OptimConfig>>& optimConfigFields();
const std::vector<JsonField<RunConfig>>& runConfigFields();

// nlohmann's conversions, through the same tables (from_json is strict, with no source name).

void to_json(nlohmann::json& j, const TaskConfig& c);
void from_json(const nlohmann::json& j, TaskConfig& c);
void to_json(nlohmann::json& j, const OptimConfig& c);
void from_json(const nlohmann::json& j, OptimConfig& c);
void to_json(nlohmann::json& j, const RunConfig& c);
void from_json(const nlohmann::json& j, RunConfig& c);
void to_json(nlohmann::json& j, const TrainConfig& c);
void from_json(const nlohmann::json& j, TrainConfig& c);

}  // namespace poslab
