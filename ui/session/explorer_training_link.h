// The explorer and the training tab share one state, both ways:
// - Train from here: the training setup with the explorer's family and its values as the run's
//   family parameters (family_params), so a γ set in the explorer is the run's initial γ.
// - Show in explorer: a trained run's learned position parameters (core's train/learned_values.h:
//   the mean over layers, then over every head and block or one head's own) as the explorer's
//   values, over the values the run started from, so every explorer view shows what was learned.
// Plain functions over values; the composition root (app_shell.cpp) applies them to the widgets.
#pragma once

#include <QString>

#include <map>
#include <string>
#include <vector>

#include "train/experiment_spec.h"  // plain data, no torch
#include "train/snapshot.h"         // plain data, no torch

namespace poslab::ui {

// `setup` training `family` alone, from the explorer's `values`; the parameters the model sets
// itself from its size (core's modelSizedFamilyParams: head_dim, heads) are left to the model.
poslab::ExperimentSpec trainFromExplorer(const poslab::ExperimentSpec& setup,
                                         const std::string& family,
                                         const std::map<std::string, double>& values);

// What "Show in explorer" puts into the explorer for a run of `family` with `heads` heads that
// started from `start` (its family parameters) and reported `snapshot`: `head` -1 for the mean
// over every head, else that head (0-based). *note says what was shown (and what could not be).
struct ExplorerValues {
  std::map<std::string, double> values;  // every parameter of the family
  QString note;                          // for the status bar
  QString error;                         // non-empty: nothing to show (values empty)
};
ExplorerValues explorerValuesFromRun(const std::string& family, long long heads, int head,
                                     const std::map<std::string, double>& start,
                                     const poslab::Snapshot& snapshot);

}  // namespace poslab::ui
