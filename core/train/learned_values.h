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

// The parameter of `family` a learned value shows in the explorer, as the family declares it
// (FamilyInfo::learnedShows): PJ-bias's gate_FJ, gate_affine and gate_LC (its gates after their
// softmax) are g_fj, g_aff and g_lc, whose explorer values are normalised to sum 1 in the same
// way; PoPE's delta_mean (delta averaged over its components) is delta, the explorer's one phase
// bias for every component; every other name is itself. Throws InvalidArgument for an unknown
// family.
std::string explorerParamOfLearned(const std::string& family, const std::string& learnedName);

// The values of `family`'s parameters (its FamilyInfo::params, every one) that show a run that
// started from `start` (its family parameters; a missing one takes the family's default) and
// learned `learned`: a parameter with learned values (under its own name or the name
// explorerParamOfLearned maps to it) takes their mean, clamped to the parameter's
// range (a clamped name is added to *clamped); the others keep their start. Learned names that show
// none of the family's parameters (PJ-bias's masses, ...) are added to *unmatched. Throws
// InvalidArgument for an unknown family.
std::map<std::string, double> familyValuesFromLearned(
    const std::string& family, const std::map<std::string, double>& start,
    const PositionParameters& learned, std::vector<std::string>* clamped = nullptr,
    std::vector<std::string>* unmatched = nullptr);

}  // namespace poslab
