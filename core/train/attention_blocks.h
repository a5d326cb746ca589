// The attention block the trainer sets for each kind of forward pass
// (TinyTransformer::configureAttention): up to `block` tokens, attention materialises its
// (B, H, T, T) weights; beyond, it streams over key blocks of that size with an online softmax.
// Torch-free, so that the evaluation budgets (run_limits.cpp) can count with the same block.
#pragma once

#include <algorithm>

namespace poslab {

// Evaluation, prediction and inspection passes: exact weights up to 1024 tokens and streamed
// beyond, so that memory grows as T * 1024, not T^2, at long evaluation lengths.
constexpr long long kEvalAttentionBlock = 1024;

// Training: one block of the whole training length (never streamed), at least the evaluation's.
inline long long trainingAttentionBlock(long long trainLength) {
  return std::max(kEvalAttentionBlock, trainLength);
}

// Recording the weights of a sample (attentionSample): the full (T, T) map in one block.
inline long long recordingAttentionBlock(long long length) {
  return std::max(length, 1LL);
}

}  // namespace poslab
