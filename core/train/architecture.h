// Named architectures: the bundles of model and optimiser choices that each paper's reference
// code makes (docs/MATH.md 2.1.1), so that a preset or a run can say "the Jordan-RoPE reference's
// model" in one word. Applying one sets its fields of a TrainConfig; fields set after it (a
// preset's "config") override them. Plain data, no torch.
#pragma once

#include <string>
#include <vector>

#include "train/train_config.h"

namespace poslab {

struct Architecture {
  std::string id;           // "poslab", "jordan-reference", "pj-reference"
  std::string description;  // one line: what it sets and whose code it follows
  void (*apply)(TrainConfig&);
};

// The known architectures, "poslab" (the defaults of TrainConfig) first.
const std::vector<Architecture>& architectures();
std::vector<std::string> architectureIds();
// Sets the architecture's fields of `config`. Throws InvalidArgument naming the unknown id (and
// listing the known ones).
void applyArchitecture(const std::string& id, TrainConfig& config);

}  // namespace poslab
