// The explorer's computations: one call into core per view. Runs on the worker thread; the only
// explorer code that reaches torch (in the .cpp).
#pragma once

#include "bridge/explorer_types.h"

namespace poslab::ui {

// Never throws: a failure (bad parameter combination, map too large, ...) comes back in
// result.error with core's message.
ExplorerResult computeExplorer(const ExplorerRequest& request);

// Gives the calling thread one intra-op (OpenMP) thread, leaving other threads as they are. The
// explorer's worker calls it once: a team of two spin-waits between the many small ops of a map
// and starves the GUI thread on a 2-core machine (512 x 512 map: latency p95 180-720 ms with two
// threads, 28-40 ms with one; docs/performance/gui_responsiveness.md).
void useOneIntraOpThread();

}  // namespace poslab::ui
