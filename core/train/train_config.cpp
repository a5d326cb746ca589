#include "train/train_config.h"

#include <cmath>

#include "util/error.h"

namespace poslab {

void TrainConfig::validate() const {
  model.validate();
  auto positive = [](const char* name, double v) {
    if (!(v > 0) || !std::isfinite(v))
      throw InvalidArgument(std::string(name) + " = " + std::to_string(v) + " must be positive");
  };
  positive("lr", optim.lr);
  positive("batch", static_cast<double>(optim.batch));
  positive("grad_clip", optim.gradClip);
  positive("position_lr_scale", optim.positionLrScale);
  positive("train length", static_cast<double>(task.trainLength));
  if (task.minTrainLength < 0 || task.minTrainLength > task.trainLength)
    throw InvalidArgument("min_train_length " + std::to_string(task.minTrainLength) +
                          " must be 0 (off) or at most train_length " +
                          std::to_string(task.trainLength));
  if (optim.weightDecay < 0 || !std::isfinite(optim.weightDecay))
    throw InvalidArgument("weight_decay must be >= 0");
  if (run.steps < 0) throw InvalidArgument("steps must be >= 0");
  if (optim.warmup < 0) throw InvalidArgument("warmup must be >= 0");
  if (optim.minLrRatio < 0 || optim.minLrRatio > 1)
    throw InvalidArgument("min_lr_ratio must be in [0, 1]");
  if (run.device != "auto" && run.device != "cpu" && run.device != "cuda")
    throw InvalidArgument("device '" + run.device + "' is not one of auto, cpu, cuda");
  for (long long L : run.evalLengths)
    if (L < 2) throw InvalidArgument("evaluation length " + std::to_string(L) + " is too short");
}

void to_json(nlohmann::json& j, const TaskConfig& c) {
  j = {{"id", c.id},
       {"options", c.options},
       {"kernel", c.kernel},
       {"text_file", c.textFile},
       {"train_length", c.trainLength},
       {"min_train_length", c.minTrainLength},
       {"head_dim", c.headDim}};
}
void from_json(const nlohmann::json& j, TaskConfig& c) {
  TaskConfig d;
  c.id = j.value("id", d.id);
  c.options = j.value("options", d.options);
  c.kernel = j.value("kernel", d.kernel);
  c.textFile = j.value("text_file", d.textFile);
  c.trainLength = j.value("train_length", d.trainLength);
  c.minTrainLength = j.value("min_train_length", d.minTrainLength);
  c.headDim = j.value("head_dim", d.headDim);
}
void to_json(nlohmann::json& j, const OptimConfig& c) {
  j = {{"lr", c.lr},
       {"weight_decay", c.weightDecay},
       {"beta1", c.beta1},
       {"beta2", c.beta2},
       {"warmup", c.warmup},
       {"min_lr_ratio", c.minLrRatio},
       {"grad_clip", c.gradClip},
       {"batch", c.batch},
       {"position_lr_scale", c.positionLrScale}};
}
void from_json(const nlohmann::json& j, OptimConfig& c) {
  OptimConfig d;
  c.lr = j.value("lr", d.lr);
  c.weightDecay = j.value("weight_decay", d.weightDecay);
  c.beta1 = j.value("beta1", d.beta1);
  c.beta2 = j.value("beta2", d.beta2);
  c.warmup = j.value("warmup", d.warmup);
  c.minLrRatio = j.value("min_lr_ratio", d.minLrRatio);
  c.gradClip = j.value("grad_clip", d.gradClip);
  c.batch = j.value("batch", d.batch);
  c.positionLrScale = j.value("position_lr_scale", d.positionLrScale);
}
void to_json(nlohmann::json& j, const RunConfig& c) {
  j = {{"seed", c.seed},
       {"steps", c.steps},
       {"eval_lengths", c.evalLengths},
       {"eval_every", c.evalEvery},
       {"eval_sequences", c.evalSequences},
       {"eval_tokens_per_batch", c.evalTokensPerBatch},
       {"device", c.device}};
}
void from_json(const nlohmann::json& j, RunConfig& c) {
  RunConfig d;
  c.seed = j.value("seed", d.seed);
  c.steps = j.value("steps", d.steps);
  c.evalLengths = j.value("eval_lengths", d.evalLengths);
  c.evalEvery = j.value("eval_every", d.evalEvery);
  c.evalSequences = j.value("eval_sequences", d.evalSequences);
  c.evalTokensPerBatch = j.value("eval_tokens_per_batch", d.evalTokensPerBatch);
  c.device = j.value("device", d.device);
}
void to_json(nlohmann::json& j, const TrainConfig& c) {
  j = {{"model", c.model}, {"task", c.task}, {"optim", c.optim}, {"run", c.run}};
}
void from_json(const nlohmann::json& j, TrainConfig& c) {
  c.model = j.value("model", ModelConfig{});
  c.task = j.value("task", TaskConfig{});
  c.optim = j.value("optim", OptimConfig{});
  c.run = j.value("run", RunConfig{});
}

}  // namespace poslab
