// The work budgets of a run the training form plans: core's one check (train/run_limits.h,
// trainingRunBudgetProblem: its evaluation at each length and at all of them together, a training
// step's memory, and the whole run, steps x batch x length with its evaluations). The form
// (training/training_setup.h) makes it wherever a run starts or its work can grow: Play, Step,
// values changed while paused, a setup loaded (preset, session, lesson step), checkpoints
// continued; nothing over a budget starts and the line says which of its controls to change.
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
