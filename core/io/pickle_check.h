// A structural check of a pickle stream (the data.pkl of a PyTorch zip archive) made before
// LibTorch sees it. LibTorch 1.13's unpickler trusts its input: an opcode without its operands
// pops an empty stack, a memo index or a string length is used as given (a forged length
// allocates gigabytes), and deep nesting recurses without bound. This check accepts only what
// torch::pickle_save writes for PosLab's checkpoints (docs/RELIABILITY.md): protocol 2, the
// opcodes below, the globals of tensors and type tags, memo references to strings, numbers and
// globals only (so no value can contain itself), nesting at most kMaxPickleDepth deep.
#pragma once

#include <string>
#include <string_view>

namespace poslab {

inline constexpr int kMaxPickleDepth = 64;  // PosLab's checkpoints nest 5 deep

// Empty when `pickle` passes, else what is wrong and at which byte ("opcode 't' at byte 2 has no
// MARK before it").
std::string pickleStructureProblem(std::string_view pickle);

}  // namespace poslab
