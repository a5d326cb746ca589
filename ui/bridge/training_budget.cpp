// Bridge TU: the training form's budget checks (includes ATen through the core headers).
#include "bridge/training_budget.h"

#include <exception>
#include <memory>
#include <vector>

#include "tasks/task.h"
#include "train/run_limits.h"

namespace poslab::ui {

std::string trainingBudgetProblem(const TrainConfig& config) {
  TaskConfig t = config.task;
  t.headDim = config.model.headDim();  // as the trainer builds it (kernel-lm's omega)
  std::unique_ptr<Task> task, evalTask;
  try {
    task = makeTask(t);
    evalTask = makeEvaluationTask(t);
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
    // One pass over the sequences, and one per distance point of kv-retrieval (Trainer::evaluate).
    const auto passes = 1 + static_cast<long long>(evalTask->accuracyDistances(L).size());
    try {
      checkEvaluationFits(config, task->vocabSize(), L, passes * config.run.evalSequences);
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

}  // namespace poslab::ui
