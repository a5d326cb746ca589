// The explorer and the training tab share one state, both ways:
// - Train from here: the training setup with the explorer's family and its values as the run's
//   family parameters (family_params), so a γ set in the explorer is the run's initial γ.
// - Show in explorer: a trained run's learned position parameters (the snapshot's values, mean
//   over layers, then the mean over what they hold per head and block) as the explorer's values,
//   over the values the run started from, so that every explorer view shows what was learned.
// Both are plain functions over values; the composition root (app_shell.cpp) applies them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "train/experiment_spec.h"  // plain data, no torch

namespace poslab::ui {

// `setup` training `family` alone, from the explorer's `values`; the parameters the model sets
// itself (head_dim, heads) are left to the model.
poslab::ExperimentSpec trainFromExplorer(const poslab::ExperimentSpec& setup,
                                         const std::string& family,
                                         const std::map<std::string, double>& values);

// The explorer values that show a run of `family` that started from `start` (its family
// parameters; missing ones take the family's defaults) and has learned `learned` (a snapshot's
// position parameters, each a list of values over heads and blocks: their mean is taken). Only
// the family's own parameters are set; a learned value outside a parameter's range is clamped to
// it and named in *clamped.
std::map<std::string, double> explorerValuesFromRun(
    const std::string& family, const std::map<std::string, double>& start,
    const std::map<std::string, std::vector<double>>& learned,
    std::vector<std::string>* clamped = nullptr);

}  // namespace poslab::ui
