// `poslab-cli diagnose --fixed-kernel`: the fixed kernel basis recovery (docs/MATH.md 4.2.6; the
// PJ-RoPE reference's experiments/fixed_kernel_recovery.py) as a table of the best basis per
// frequency and target at the longest evaluation length, or every row with --json.
#pragma once

#include <string>
#include <vector>

#include "analysis/fixed_kernel_recovery.h"

namespace poslab::cli {

// targets: sector target names (empty: the reference's eight).
void runFixedKernelRecovery(const FixedRecoverySettings& s, const std::vector<std::string>& targets,
                            bool json);

}  // namespace poslab::cli
