// The CLI's side of a distributed launch (docs/DISTRIBUTED.md): --dist-timeout, joining the
// launch that torchrun or srun started, and telling the other ranks when this one fails.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>

#include "dist/dist_group.h"

namespace poslab::cli {

struct DistOptions {
  long long timeoutSeconds = dist::kDefaultTimeoutSeconds;  // --dist-timeout
};

void addDistOptions(CLI::App* cmd, DistOptions& o);

// The launch this process is part of (rank 0 hosts the store), or null for one process alone.
// Splits the machine's cores between its local ranks. Throws InvalidArgument for a partial or
// malformed environment (dist_env.h), Error when the others cannot be reached. `batch` (when
// above 0, the global batch that the ranks split) must be a multiple of WORLD_SIZE: checked
// before any wait for the other ranks.
std::unique_ptr<dist::DistGroup> joinLaunch(const DistOptions& o, long long batch = 0);

// Runs body; when it throws, tells the other ranks (they stop with this rank's message) and
// rethrows. Without a group, just body().
void runReportingFailure(dist::DistGroup* group, const std::function<void()>& body);

}  // namespace poslab::cli
