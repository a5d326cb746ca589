#include "train/train_config.h"

#include <cmath>
#include <cstdlib>

#include "io/json_fields.h"
#include "io/json_input.h"
#include "train/run_limits.h"
#include "util/error.h"

namespace poslab {

namespace {

// The training form takes its ranges from these rows (ui/training/training_setup.cpp, formFields),
// so that a file the CLI accepts is one the GUI can show; the run-length bounds are run_limits.h's.
// Steps may be 0 here (train nothing, evaluate the initial model); the form asks for at least 1.
const std::vector<JsonField<TaskConfig>>& taskFields() {
  static const std::vector<JsonField<TaskConfig>> t = {
      {"id", &TaskConfig::id, anyValue(), "task id: indirect-indexing, kernel-lm, ..."},
      {"options", &TaskConfig::options, anyValue(), "task options by name; each task checks its"},
      {"kernel", &TaskConfig::kernel, anyValue(), "kernel-lm kernel / sector-teacher teacher"},
      {"text_file", &TaskConfig::textFile, anyValue(), "byte-lm text file (empty: the default)"},
      {"train_length", &TaskConfig::trainLength, inRange(kMinTrainLength, kMaxTrainLength),
       "training length T, tokens"},
      {"min_train_length", &TaskConfig::minTrainLength, inRange(0, kMaxTrainLength),
       "0: fixed; else each step's length is drawn from [this, T]"},
      {"train_lengths", &TaskConfig::trainLengths, inRange(kMinTrainLength, kMaxTrainLength),
       "multi-length training: the lengths the steps take (empty: train_length only)"},
      {"length_sampling", &TaskConfig::lengthSampling, oneOf({"cycle", "random"}),
       "train_lengths in turn (cycle) or one drawn per step (random)"},
      {"head_dim", &TaskConfig::headDim, inRange(1, 4096), "kernel-lm frequency base^(-6/this)"},
  };
  return t;
}

const std::vector<JsonField<OptimConfig>>& optimFields() {
  static const std::vector<JsonField<OptimConfig>> t = {
      {"lr", &OptimConfig::lr, inRange(1e-5, 1), "peak AdamW learning rate"},
      {"weight_decay", &OptimConfig::weightDecay, inRange(0, 10), "AdamW's decoupled decay"},
      {"decay", &OptimConfig::decay, oneOf({"matrices", "all"}),
       "what weight_decay applies to: matrices, or every parameter"},
      {"schedule", &OptimConfig::schedule, oneOf({"cosine", "constant"}),
       "after the warm-up: cosine to min_lr_ratio, or constant"},
      {"beta1", &OptimConfig::beta1, inRange(0, 0.99999), "AdamW beta1"},
      {"beta2", &OptimConfig::beta2, inRange(0, 0.99999), "AdamW beta2"},
      {"warmup", &OptimConfig::warmup, inRange(0, kMaxTrainSteps), "linear warm-up steps"},
      {"min_lr_ratio", &OptimConfig::minLrRatio, inRange(0, 1), "final lr / peak lr"},
      {"grad_clip", &OptimConfig::gradClip, inRange(0, 1e6), "global gradient-norm clip; 0: none"},
      {"batch", &OptimConfig::batch, inRange(1, 4096), "sequences per step"},
      {"position_lr_scale", &OptimConfig::positionLrScale, inRange(0.001, 100000),
       "position parameters train at lr times this"},
  };
  return t;
}

const std::vector<JsonField<RunConfig>>& runFields() {
  static const std::vector<JsonField<RunConfig>> t = {
      {"seed", &RunConfig::seed, anyValue(), "weights and data, 0 to 2^64-1"},
      {"steps", &RunConfig::steps, inRange(0, kMaxTrainSteps), "optimisation steps"},
      {"eval_lengths", &RunConfig::evalLengths, inRange(2, 1 << 20),
       "evaluation lengths (empty: the train length)"},
      {"eval_every", &RunConfig::evalEvery, inRange(0, kMaxTrainSteps),
       "steps between evaluations; the last step always evaluates (0: only the last)"},
      {"eval_sequences", &RunConfig::evalSequences, inRange(1, 1000000), "per evaluation length"},
      {"eval_tokens_per_batch", &RunConfig::evalTokensPerBatch, inRange(1, 1 << 30),
       "evaluation batch at length T: max(1, this / T)"},
      {"device", &RunConfig::device, oneOf({"auto", "cpu", "cuda"}), "auto: CUDA if available"},
      {"eval_data", &RunConfig::evalData, anyValue(),
       "evaluation sequence set: 0 the usual, other values independent held-out sets"},
      {"recompute_activations", &RunConfig::recomputeActivations, anyValue(),
       "recompute each block in the backward: less memory, about a third more compute"},
      {"attention", &RunConfig::attention, oneOf(attentionPathNames()),
       "attention code: fused, reference, fused-direct, sdpa (LibTorch 2.1+)"},
      {"metrics_every", &RunConfig::metricsEvery, inRange(1, kMaxTrainSteps),
       "read the step metrics back every n steps and at the last (GPU steps need not wait)"},
  };
  return t;
}

constexpr const char* kSections[] = {"model", "task", "optim", "run"};

}  // namespace

long long defaultMetricsEvery() {
  const char* env = std::getenv("POSLAB_METRICS_EVERY");
  if (!env) return 1;
  char* end = nullptr;
  const long long n = std::strtoll(env, &end, 10);
  return end != env && *end == '\0' && n > 1 && n <= kMaxTrainSteps ? n : 1;
}

const std::vector<JsonField<TaskConfig>>& taskConfigFields() {
  return taskFields();
}
const std::vector<JsonField<OptimConfig>>& optimConfigFields() {
  return optimFields();
}
const std::vector<JsonField<RunConfig>>& runConfigFields() {
  return runFields();
}

void TrainConfig::validate() const {
  validate(JsonPath{});
}

void TrainConfig::checkFields(const JsonPath& at) const {
  checkJsonFields(model, at.key("model"), modelConfigFields());
  checkJsonFields(task, at.key("task"), taskFields());
  checkJsonFields(optim, at.key("optim"), optimFields());
  checkJsonFields(run, at.key("run"), runFields());
}

void TrainConfig::validate(const JsonPath& at) const {
  model.validate(at.key("model"));
  checkJsonFields(task, at.key("task"), taskFields());
  checkJsonFields(optim, at.key("optim"), optimFields());
  checkJsonFields(run, at.key("run"), runFields());
  if (task.minTrainLength > task.trainLength)
    at.key("task")
        .key("min_train_length")
        .fail("= " + std::to_string(task.minTrainLength) +
              " must be 0 (off) or at most train_length " + std::to_string(task.trainLength));
  if (task.minTrainLength > 0 && !task.trainLengths.empty())
    at.key("task")
        .key("train_lengths")
        .fail("and min_train_length cannot both be set",
              "use one way of varying the training length");
}

void readTrainConfig(const nlohmann::json& j, const JsonPath& at, TrainConfig& out) {
  checkJsonObject(j, at, {std::begin(kSections), std::end(kSections)});
  TrainConfig c = out;
  if (auto it = j.find("model"); it != j.end()) readModelConfig(*it, at.key("model"), c.model);
  if (auto it = j.find("task"); it != j.end())
    readJsonFields(*it, at.key("task"), taskFields(), c.task);
  if (auto it = j.find("optim"); it != j.end())
    readJsonFields(*it, at.key("optim"), optimFields(), c.optim);
  if (auto it = j.find("run"); it != j.end())
    readJsonFields(*it, at.key("run"), runFields(), c.run);
  out = c;
}

TrainConfig readTrainConfigFile(const std::string& path, const std::string& what) {
  TrainConfig c;
  readTrainConfig(readJsonFile(path, what), JsonPath{what + " '" + path + "'", ""}, c);
  return c;
}

void to_json(nlohmann::json& j, const TaskConfig& c) {
  j = writeJsonFields(c, taskFields());
}
void from_json(const nlohmann::json& j, TaskConfig& c) {
  c = TaskConfig{};
  readJsonFields(j, JsonPath{"", "task"}, taskFields(), c);
}
void to_json(nlohmann::json& j, const OptimConfig& c) {
  j = writeJsonFields(c, optimFields());
}
void from_json(const nlohmann::json& j, OptimConfig& c) {
  c = OptimConfig{};
  readJsonFields(j, JsonPath{"", "optim"}, optimFields(), c);
}
void to_json(nlohmann::json& j, const RunConfig& c) {
  j = writeJsonFields(c, runFields());
}
void from_json(const nlohmann::json& j, RunConfig& c) {
  c = RunConfig{};
  readJsonFields(j, JsonPath{"", "run"}, runFields(), c);
}
void to_json(nlohmann::json& j, const TrainConfig& c) {
  j = {{"model", c.model}, {"task", c.task}, {"optim", c.optim}, {"run", c.run}};
}
void from_json(const nlohmann::json& j, TrainConfig& c) {
  c = TrainConfig{};
  readTrainConfig(j, JsonPath{}, c);
}

}  // namespace poslab
