// Synthetic and text tasks (docs/MATH.md 3). A task is a seeded generator: the same (seed, batch,
// length) always gives the same batch, on any device and any build (generation uses std::mt19937_64
// on the CPU, never torch's RNG), so that compare runs see identical data and reset replays it.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tasks/task_config.h"

namespace poslab {

struct Batch {
  at::Tensor tokens;   // (B, T) int64 input tokens
  at::Tensor targets;  // (B, T) int64 target token at each position; -1 = no loss there
  at::Tensor answer;   // (B, T) bool: positions scored for accuracy (all false: no accuracy)
  at::Tensor info;     // (B) int64 per-example detail (key distance for retrieval), or undefined
};

class Task {
 public:
  virtual ~Task() = default;
  virtual std::string id() const = 0;
  virtual long long vocabSize() const = 0;
  // True when the task reports accuracy (answer positions exist).
  virtual bool hasAccuracy() const { return true; }
  // n when every scored target is a token below n (the bits tasks: 2), so that a model may read
  // only the first n logits (model.answer_logits); 0 when targets can be any token.
  virtual long long answerTokenCount() const { return 0; }
  // Smallest and largest sequence length the task can generate (inclusive).
  virtual long long minLength() const = 0;
  virtual long long maxLength() const = 0;
  // A batch of `batch` sequences of `length` tokens; throws InvalidArgument for a length outside
  // [minLength, maxLength].
  virtual Batch sample(long long batch, long long length, uint64_t seed) const = 0;
  // Bits-then-QUERY tasks (kernel-lm, sector-teacher): weights[d], d = 0..length-1 (index 0
  // unused), the lag weights whose signed sum over the bits gives the label. Empty for other tasks.
  virtual std::vector<double> labelWeights(long long /*length*/) const { return {}; }
  // The task's target or teacher kernel K(d) as its paper defines it, before any normalisation or
  // softmax: k[d], d = 0..length-1 (index 0 unused), at the lags a sequence of `length` tokens
  // has. Empty for tasks without one (poslab-cli task-kernel prints it).
  virtual std::vector<double> targetKernel(long long /*length*/) const { return {}; }
  // Tasks whose paper reports how spread the final query's attention is (sector-teacher: the
  // PJ-RoPE reference's evaluation, analysis/final_query_attention.h): the teacher's attention
  // over the bits of a `length`-token sequence, p[d] = softmax_d(lambda K(d)), d = 1..length-1
  // (index 0 unused), whatever the teacher mode. Non-empty makes evaluation report the model's
  // final-query attention entropy and support. Empty for other tasks.
  virtual std::vector<double> teacherAttention(long long /*length*/) const { return {}; }
  // Tasks whose paper reports accuracy against a distance (kv-retrieval: how far back the queried
  // key sits): the distances to report at this length. Empty for other tasks.
  virtual std::vector<long long> accuracyDistances(long long /*length*/) const { return {}; }
  // A batch like sample()'s whose every example has the given distance (its info), for the
  // distances accuracyDistances() names. Throws InvalidArgument for a task without distances.
  virtual Batch sampleAtDistance(long long batch, long long length, long long distance,
                                 uint64_t seed) const;
};

std::vector<std::string> taskIds();
// TaskInfo::takesText (task_info.h): the tasks that read TaskConfig::textFile (byte-lm).
bool taskTakesText(const std::string& id);
// Throws InvalidArgument naming an unknown task or option.
std::unique_ptr<Task> makeTask(const TaskConfig& config);
// The task that evaluation draws its sequences from: makeTask(config) with the task's
// TaskInfo::evaluationOptions over its options (byte-lm: split = 1, the held-out last 10% of the
// text; the others: none).
std::unique_ptr<Task> makeEvaluationTask(const TaskConfig& config);
// The same two without reading any data (TaskInfo::makeOutline): vocabulary, lengths, distances
// and kernels as the built task's, for budgets and load checks; sample() throws. A text task's
// file is only checked by its size (its UTF-8 is checked when the run builds the task).
std::unique_ptr<Task> makeTaskOutline(const TaskConfig& config);
std::unique_ptr<Task> makeEvaluationTaskOutline(const TaskConfig& config);

}  // namespace poslab
