// Which position parameters a family learns, so that pinning one it does not learn (`--pin gamma`
// on RoPE) is refused instead of silently doing nothing.
#pragma once

#include <string>
#include <vector>

#include "model/model_config.h"

namespace poslab {

// The names ModelConfig::pinned may hold for the family of `cfg`: the pins its trainable form
// declares (encodings/trainable.h, Learnable::pin) on the tensors it learns, in its order.
std::vector<std::string> learnedPinnables(const ModelConfig& cfg, long long trainLength);
// Throws InvalidArgument naming the pin and the family when a pinned name is not learned.
void checkPinsApply(const ModelConfig& cfg, long long trainLength);

}  // namespace poslab
