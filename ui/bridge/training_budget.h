// The work budgets of a run the training form plans (core's train/run_limits.h): its evaluation at
// each length and at all of them together, a training step's memory, and the whole run (steps x
// batch x length with its evaluations), checked when Play is pressed, before any run is built,
// so that nothing over a budget starts and the form says which of its controls to change.
#pragma once

#include <string>

#include "train/train_config.h"  // TrainConfig: plain data, no torch

namespace poslab::ui {

// Empty when `config` fits the budgets (or its task cannot be built: building the run reports
// that); else one line naming the form's control, then core's estimate and budget: "eval lengths:
// evaluation at length 200000 with 32 sequences needs about 2e+13 multiply-adds, over the budget
// of 2e+12 on a CPU (...)".
std::string trainingBudgetProblem(const TrainConfig& config);

}  // namespace poslab::ui
