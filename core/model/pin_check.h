// Which position parameters a family learns, so that pinning one it does not learn (`--pin gamma`
// on RoPE) is refused instead of silently doing nothing, and a start value the family's learned
// form cannot hold is refused instead of moved.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/model_config.h"

namespace poslab {

// The names ModelConfig::pinned may hold for the family of `cfg`: the pins its trainable form
// declares (encodings/trainable.h, Learnable::pin) on the tensors it learns, in its order.
std::vector<std::string> learnedPinnables(const ModelConfig& cfg, long long trainLength);
// Throws InvalidArgument naming the pin and the family when a pinned name is not learned.
void checkPinsApply(const ModelConfig& cfg, long long trainLength);
// The names of cfg.pinned that cfg's family learns, in cfg.pinned's order. An experiment of several
// families pins each name in the families that learn it (`--pin gamma` beside rope holds the
// gamma of damped-rope and leaves rope alone); planExperiment gives each run these.
std::vector<std::string> pinsTheFamilyLearns(const ModelConfig& cfg, long long trainLength);
// For an experiment of several families: throws InvalidArgument when a name of `pinned` is in no
// family's `learnedByFamily` (each family's learnedPinnables), naming the pin and the families.
void checkPinsApplyToSome(
    const std::vector<std::string>& pinned,
    const std::vector<std::pair<std::string, std::vector<std::string>>>& learnedByFamily);
// Throws InvalidArgument when the family's trainable form, with cfg's pins, cannot start from the
// family parameters (an eta past its learned cap): what the model would
// build, checked before it is built.
void checkTrainableStart(const ModelConfig& cfg, long long trainLength);

}  // namespace poslab
