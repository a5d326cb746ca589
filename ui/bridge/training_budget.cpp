// Bridge TU: the training form's budget checks (includes ATen through the core headers).
#include "bridge/training_budget.h"

#include "train/run_limits.h"

namespace poslab::ui {

std::string trainingBudgetProblem(const TrainConfig& config) {
  return trainingRunBudgetProblem(config);
}

}  // namespace poslab::ui
