// Reading a checkpoint file (poslab-checkpoint-1, written by Trainer::saveCheckpoint) without
// trusting it: LibTorch 1.13's loader does not check what it reads (docs/RELIABILITY.md), so
// PosLab checks the bytes before torch sees them and the values torch returns before using them.
#pragma once

#include <ATen/core/Dict.h>
#include <ATen/core/ivalue.h>

#include <string>

namespace poslab {

inline constexpr const char* kCheckpointFormat = "poslab-checkpoint-1";

// The checkpoint's top-level dictionary: "format" (kCheckpointFormat), "config" (a TrainConfig's
// JSON text), "step" (an integer), "model" and "optimizer" (name -> tensor, each tensor inside
// its storage). Before unpickling: the file is a regular file under kMaxCheckpointBytes, a zip
// archive with a data.pkl that passes pickleStructureProblem (io/pickle_check.h). Throws Error
// ("checkpoint PATH is not a PosLab checkpoint (why)", "... has an unknown format").
c10::impl::GenericDict readCheckpointDict(const std::string& path);

}  // namespace poslab
