// Reading an indirect-indexing example back (layout in indirect_indexing.cpp): which character is
// the source, where it stands, the offset, the right answer and the model's. Plain data, no torch.
#pragma once

#include <vector>

#include "tasks/task_config.h"

namespace poslab {

struct IndirectIndexingExample {
  std::vector<long long> characters;  // c_0 .. c_{n-1}, each in [0, alphabet)
  long long source = 0;               // the source character c_p
  long long sourcePosition = 0;       // p
  long long offset = 0;               // o in [-K, K] \ {0}
  long long truth = 0;                // c_{p+o}: the task's target
  long long prediction = -1;          // the model's answer (a token id; may be no character)
  bool correct() const { return prediction == truth; }
};

// Alphabet A and max offset K of a config (its options or the task's defaults 128 and 8).
long long indirectIndexingAlphabet(const TaskConfig& config);
long long indirectIndexingMaxOffset(const TaskConfig& config);

// Decodes one input sequence (T = n + 3 tokens) of the task configured by `config`. Throws
// InvalidArgument naming what does not fit the layout (no SEP at n, a source that is not among
// the characters, an offset token out of range or pointing outside the sequence).
IndirectIndexingExample decodeIndirectIndexing(const TaskConfig& config,
                                               const std::vector<long long>& tokens,
                                               long long prediction);

}  // namespace poslab
