#include "train/run_limits.h"

#include <ATen/Context.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>

#include "limits/work_budget.h"
#include "tasks/task.h"
#include "util/error.h"

namespace poslab {

namespace {
std::string shortNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", v);
  return buf;
}
// What a token costs besides the model's products, in multiply-adds (evaluationCost).
constexpr double kPerTokenBesides = 5e4;
// The optimiser's update per parameter per step (AdamW, the clip's norm), in multiply-adds.
constexpr double kUpdatePerParameter = 20;
}  // namespace

EvalCost evaluationCost(const ModelConfig& model, long long vocab, long long length,
                        long long sequences, long long tokensPerBatch) {
  const double T = static_cast<double>(length);
  const double batch =
      static_cast<double>(std::max<long long>(1, std::min(sequences, tokensPerBatch / length)));
  // The forward passes, and what every token costs besides: sampling the task (kernel-lm sums its
  // kernel over the lags), the loss and each batch's bookkeeping. Measured on the loaded 2-core
  // machine (a 3,400-parameter kernel-lm model, C = 16): 8-20 us a token at T = 8, where the
  // products count about 3,000 multiply-adds and this 5e4 at 5e9 a second (1.4e11 take 15-54 s)
  // gives 10 us. So a million evaluation sequences of a small model are refused, not an hour's run.
  EvalCost c;
  c.work = forwardCost(model, vocab, length, sequences, 1).multiplyAdds +
           static_cast<double>(sequences) * T * kPerTokenBesides;
  c.bytes = forwardCost(model, vocab, length, 1, static_cast<long long>(batch)).bytes;
  return c;
}

double evaluationWorkBudget(const std::string& device) {
  const bool cuda = device == "cuda" || (device == "auto" && at::hasCUDA());
  return cuda ? kEvalWorkBudgetCuda : kEvalWorkBudget;
}

long long evaluationPasses(const Task& task, long long length) {
  return 1 + static_cast<long long>(task.accuracyDistances(length).size());
}

namespace {
// Refuses `what` when `work` multiply-adds exceed the evaluation budget of config's device.
void checkEvaluationWork(const TrainConfig& config, double work, const std::string& what) {
  const double unscaled = evaluationWorkBudget(config.run.device);
  const double budget = unscaled * workBudgetScale();
  if (work <= budget) return;
  const bool cpu = unscaled == kEvalWorkBudget;
  const std::string ask = cpu && work <= kEvalWorkBudgetCuda * workBudgetScale()
                              ? "use shorter lengths or fewer evaluation sequences, or run it on "
                                "a CUDA device (--device cuda)"
                              : "use shorter lengths or fewer evaluation sequences";
  const std::string factor = budgetFactorHint(work / budget);
  throw InvalidArgument(what + " needs about " + shortNumber(work) +
                            " multiply-adds, over the budget of " + shortNumber(budget) +
                            (cpu ? " on a CPU (minutes of work)" : " on a CUDA device"),
                        factor.empty() ? ask : ask + "; " + factor);
}
}  // namespace

void checkEvaluationFits(const TrainConfig& config, long long vocab, long long length,
                         long long sequences) {
  const EvalCost c =
      evaluationCost(config.model, vocab, length, sequences, config.run.evalTokensPerBatch);
  const std::string what = "evaluation at length " + std::to_string(length) + " with " +
                           std::to_string(sequences) + " sequences";
  checkEvaluationWork(config, c.work, what);
  if (c.bytes > kEvalMemoryBudget * workBudgetScale()) {
    const std::string factor = budgetFactorHint(c.bytes / (kEvalMemoryBudget * workBudgetScale()));
    throw InvalidArgument(
        what + " needs about " + shortNumber(c.bytes / (1 << 30)) + " GiB, over the " +
            shortNumber(kEvalMemoryBudget * workBudgetScale() / (1 << 30)) +
            " GiB evaluation memory budget",
        factor.empty() ? "use shorter lengths" : "use shorter lengths; " + factor);
  }
  // Progress moves once per sequence at long lengths: one sequence's pass is held to the budget
  // of a request without progress (limits/work_budget.h), or minutes pass without a sign.
  const WorkCost pass = forwardCost(config.model, vocab, length, 1, 1);
  checkWorkFits(pass, what + ": one sequence's forward pass",
                kRequestWorkBudget * evaluationWorkBudget(config.run.device) / kEvalWorkBudget);
}

void checkEvaluationTotalFits(const TrainConfig& config, const Task& task,
                              const std::vector<long long>& lengths, long long sequences) {
  if (lengths.size() < 2) return;  // one length: checkEvaluationFits counted it
  double work = 0;
  std::string list;
  for (size_t i = 0; i < lengths.size(); ++i) {
    work += evaluationCost(config.model, task.vocabSize(), lengths[i],
                           evaluationPasses(task, lengths[i]) * sequences,
                           config.run.evalTokensPerBatch)
                .work;
    list += (i == 0 ? "" : i + 1 == lengths.size() ? " and " : ", ") + std::to_string(lengths[i]);
  }
  checkEvaluationWork(
      config, work,
      "evaluation at lengths " + list + " with " + std::to_string(sequences) + " sequences each");
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

long long RunWork::evaluationsAfter(long long stepsDone) const {
  // After every multiple of evalEvery and after the last step (isEvaluationStep).
  const long long done = std::clamp(stepsDone, 0LL, steps);
  if (evalEvery <= 0) return done == steps ? 1 : 0;
  return done / evalEvery + (done == steps && steps % evalEvery != 0 ? 1 : 0);
}

long long RunWork::evaluations() const {
  return evaluationsAfter(steps);
}

double RunWork::total() const {
  return static_cast<double>(steps) * perStep + static_cast<double>(evaluations()) * perEvaluation;
}

RunWork runWork(const TrainConfig& c, const Task& task) {
  const long long vocab = task.vocabSize();
  long long longest = c.task.trainLength;
  for (long long t : c.task.trainLengths) longest = std::max(longest, t);
  const double B = static_cast<double>(c.optim.batch), T = static_cast<double>(longest);
  const double step = 3 * forwardCost(c.model, vocab, longest, c.optim.batch, 1).multiplyAdds +
                      B * T * kPerTokenBesides +
                      kUpdatePerParameter * modelParameterCount(c.model, vocab);
  std::vector<long long> lengths = c.run.evalLengths;
  if (lengths.empty()) lengths = {c.task.trainLength};  // the train length, as the trainer does
  double evaluation = 0;
  for (long long L : lengths)
    evaluation += evaluationCost(c.model, vocab, L, evaluationPasses(task, L) * c.run.evalSequences,
                                 c.run.evalTokensPerBatch)
                      .work;
  RunWork work;
  work.perStep = step;
  work.perEvaluation = evaluation;
  work.steps = c.run.steps;
  work.evalEvery = c.run.evalEvery;
  return work;
}

double trainingWorkCost(const TrainConfig& c, const Task& task) {
  return runWork(c, task).total();
}

namespace {
// The task a run of `config` builds: its head size sets kernel-lm's omega, as in the trainer.
TaskConfig plannedTask(const TrainConfig& config) {
  TaskConfig t = config.task;
  t.headDim = config.model.headDim();
  return t;
}
}  // namespace

RunWork plannedRunWork(const TrainConfig& config) {
  const TaskConfig t = plannedTask(config);
  try {
    return runWork(config, *makeEvaluationTaskOutline(t));
  } catch (const std::exception&) {
    return {};  // not a question of work: building the run says what is wrong
  }
}

void checkTrainingWorkFits(const TrainConfig& c, const Task& task) {
  const bool cuda = evaluationWorkBudget(c.run.device) == kEvalWorkBudgetCuda;
  const double budget = (cuda ? kTrainWorkBudgetCuda : kTrainWorkBudget) * workBudgetScale();
  const double work = trainingWorkCost(c, task);
  if (work <= budget) return;
  const std::string factor = budgetFactorHint(work / budget);
  const std::string ask = "use fewer steps, a smaller batch or shorter sequences";
  throw InvalidArgument(
      std::to_string(c.run.steps) + " steps of batch " + std::to_string(c.optim.batch) +
          " at length " + std::to_string(c.task.trainLength) +
          " (with their evaluations) need "
          "about " +
          shortNumber(work) + " multiply-adds, over the budget of " + shortNumber(budget) +
          (cuda ? " on a CUDA device" : " on a CPU (about a day of work)"),
      factor.empty() ? ask : ask + "; " + factor);
}

std::string trainingRunBudgetProblem(const TrainConfig& config) {
  const TaskConfig t = plannedTask(config);
  std::unique_ptr<Task> task, evalTask;
  try {
    task = makeTaskOutline(t);  // nothing read: the window asks this on its UI thread
    evalTask = makeEvaluationTaskOutline(t);
  } catch (const std::exception&) {
    return {};  // not a question of work: building the run says what is wrong
  }
  try {
    checkTrainingFits(config, task->vocabSize());
  } catch (const std::exception& e) {
    return std::string("train length and batch: ") + e.what();
  }
  std::vector<long long> lengths = config.run.evalLengths;
  if (lengths.empty()) lengths = {t.trainLength};  // the train length, as the trainer does
  for (long long L : lengths) {
    try {
      checkEvaluationFits(config, task->vocabSize(), L,
                          evaluationPasses(*evalTask, L) * config.run.evalSequences);
    } catch (const std::exception& e) {
      return std::string("eval lengths and eval sequences: ") + e.what();
    }
  }
  try {  // the lengths together
    checkEvaluationTotalFits(config, *evalTask, lengths, config.run.evalSequences);
  } catch (const std::exception& e) {
    return std::string("eval lengths and eval sequences: ") + e.what();
  }
  try {  // the whole run: steps x batch x length, and its evaluations
    checkTrainingWorkFits(config, *evalTask);
  } catch (const std::exception& e) {
    return std::string("steps, batch and train length: ") + e.what();
  }
  return {};
}

}  // namespace poslab
