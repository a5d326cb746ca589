// The explorer's computations: one call into core per view. Runs on the worker thread; the only
// explorer code that reaches torch (in the .cpp).
#pragma once

#include "bridge/explorer_types.h"

namespace poslab::ui {

// Never throws: a failure (bad parameter combination, map too large, ...) comes back in
// result.error with core's message.
ExplorerResult computeExplorer(const ExplorerRequest& request);

}  // namespace poslab::ui
