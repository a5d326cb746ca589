#include "train/run_limits.h"

#include <ATen/Context.h>

#include <algorithm>
#include <cstdio>

#include "limits/work_budget.h"
#include "train/attention_blocks.h"
#include "util/error.h"

namespace poslab {

namespace {
std::string shortNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", v);
  return buf;
}
}  // namespace

EvalCost evaluationCost(const ModelConfig& model, long long vocab, long long length,
                        long long sequences, long long tokensPerBatch) {
  const double T = static_cast<double>(length);
  const double C = static_cast<double>(model.dModel);
  const double batch =
      static_cast<double>(std::max<long long>(1, std::min(sequences, tokensPerBatch / length)));
  EvalCost c;
  c.work = static_cast<double>(sequences) * static_cast<double>(model.layers) * T * T * C;
  const double scores =
      static_cast<double>(model.heads) * std::min(T, static_cast<double>(kEvalAttentionBlock));
  const double perToken = scores + static_cast<double>(std::max<long long>(vocab, 1)) + 8 * C;
  c.bytes = batch * T * perToken * 4;  // float32
  return c;
}

double evaluationWorkBudget(const std::string& device) {
  const bool cuda = device == "cuda" || (device == "auto" && at::hasCUDA());
  return cuda ? kEvalWorkBudgetCuda : kEvalWorkBudget;
}

void checkEvaluationFits(const TrainConfig& config, long long vocab, long long length,
                         long long sequences) {
  const EvalCost c =
      evaluationCost(config.model, vocab, length, sequences, config.run.evalTokensPerBatch);
  const std::string what = "evaluation at length " + std::to_string(length) + " with " +
                           std::to_string(sequences) + " sequences";
  const double unscaled = evaluationWorkBudget(config.run.device);
  const double budget = unscaled * workBudgetScale();
  const std::string raise =
      workBudgetScale() < 1e15 ? " (or pass --budget to allow more)" : std::string();
  if (c.work > budget)
    throw InvalidArgument(
        what + " needs about " + shortNumber(c.work) + " multiply-adds, over the budget of " +
            shortNumber(budget) +
            (unscaled == kEvalWorkBudget ? " on a CPU (minutes of work)" : " on a CUDA device"),
        (c.work <= kEvalWorkBudgetCuda * workBudgetScale()
             ? "use shorter lengths or fewer evaluation sequences, or run it on a CUDA device "
               "(--device cuda)"
             : "use shorter lengths or fewer evaluation sequences") +
            raise);
  if (c.bytes > kEvalMemoryBudget * workBudgetScale())
    throw InvalidArgument(what + " needs about " + shortNumber(c.bytes / (1 << 30)) +
                              " GiB, over the " +
                              shortNumber(kEvalMemoryBudget * workBudgetScale() / (1 << 30)) +
                              " GiB evaluation memory budget",
                          "use shorter lengths" + raise);
  // Progress moves once per sequence at long lengths: one sequence's pass is held to the budget
  // of a request without progress (limits/work_budget.h), or minutes pass without a sign.
  const WorkCost pass = forwardCost(config.model, vocab, length, 1, 1);
  checkWorkFits(pass, what + ": one sequence's forward pass",
                kRequestWorkBudget * unscaled / kEvalWorkBudget);
}

double modelParameterCount(const ModelConfig& m, long long vocab) {
  const double C = static_cast<double>(m.dModel), V = static_cast<double>(std::max(vocab, 1LL));
  const double perLayer = 4 * C * C + 2 * static_cast<double>(m.mlpRatio) * C * C + 16 * C;
  return 2 * V * C + static_cast<double>(m.layers) * perLayer;
}

double trainingStepBytes(const TrainConfig& c, long long vocab) {
  long long longest = c.task.trainLength;  // the longest step of multi-length training
  for (long long t : c.task.trainLengths) longest = std::max(longest, t);
  const double B = static_cast<double>(c.optim.batch), T = static_cast<double>(longest);
  const double C = static_cast<double>(c.model.dModel), H = static_cast<double>(c.model.heads);
  const double L = static_cast<double>(c.model.layers);
  const double V = static_cast<double>(std::max(vocab, 1LL));
  const double scores = 3 * H * T * T;  // scores, softmax, grad
  const double activations = (12 + 3 * static_cast<double>(c.model.mlpRatio)) * C * T;
  const double perStep = B * (L * (scores + activations) + 3 * T * V);  // + logits and grad
  return 4 * (perStep + 4 * modelParameterCount(c.model, vocab));       // float32
}

void checkTrainingFits(const TrainConfig& c, long long vocab) {
  const double bytes = trainingStepBytes(c, vocab);
  if (bytes > kTrainMemoryBudget)
    throw InvalidArgument("a training step at length " + std::to_string(c.task.trainLength) +
                              " with batch " + std::to_string(c.optim.batch) + " needs about " +
                              shortNumber(bytes / (1 << 30)) +
                              " GiB, over the 8 GiB training memory budget",
                          "use a shorter train_length, a smaller batch or a smaller model");
}

}  // namespace poslab
