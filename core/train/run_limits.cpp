#include "train/run_limits.h"

#include <algorithm>
#include <cstdio>

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

void checkEvaluationFits(const TrainConfig& config, long long vocab, long long length,
                         long long sequences) {
  const EvalCost c =
      evaluationCost(config.model, vocab, length, sequences, config.run.evalTokensPerBatch);
  const std::string what = "evaluation at length " + std::to_string(length) + " with " +
                           std::to_string(sequences) + " sequences";
  if (c.work > kEvalWorkBudget)
    throw InvalidArgument(what + " needs about " + shortNumber(c.work) +
                              " multiply-adds, over the budget of " + shortNumber(kEvalWorkBudget) +
                              " (minutes of a CPU)",
                          "use shorter lengths or fewer evaluation sequences");
  if (c.bytes > kEvalMemoryBudget)
    throw InvalidArgument(what + " needs about " + shortNumber(c.bytes / (1 << 30)) +
                              " GiB, over the 4 GiB evaluation memory budget",
                          "use shorter lengths");
}

}  // namespace poslab
