// What a trained run's learned position parameters say about its family's parameters, for the
// explorer ("Show in explorer", ui/app_shell.cpp): the snapshot's values (train/snapshot.h, one
// per head, per head and block, or one for the model) reduced to one value per parameter, either
// their mean over every head and block or one head's own. Plain data, no torch.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "train/position_summary.h"

namespace poslab {

// Head `head` (0-based, < heads) of `learned`: a parameter with n values, n a multiple of `heads`,
// keeps entries [head n / heads, (head + 1) n / heads) (TrainableForm::snapshot lays them out head
// by head: entry h * nb + b is head h, block b); one that is not (a value for the whole model,
// PJ-bias's masses) keeps all of them. Throws InvalidArgument for heads < 1 or head outside.
PositionParameters headOfParameters(const PositionParameters& learned, long long heads,
                                    long long head);

// The values of `family`'s parameters (its FamilyInfo::params, every one) that show a run that
// started from `start` (its family parameters; a missing one takes the family's default) and
// learned `learned`: a parameter with learned values takes their mean, clamped to the parameter's
// range (a clamped name is added to *clamped); the others keep their start. Learned names that are
// none of the family's parameters (gate_FJ, delta_mean, ...) are added to *unmatched. Throws
// InvalidArgument for an unknown family.
std::map<std::string, double> familyValuesFromLearned(
    const std::string& family, const std::map<std::string, double>& start,
    const PositionParameters& learned, std::vector<std::string>* clamped = nullptr,
    std::vector<std::string>* unmatched = nullptr);

}  // namespace poslab
