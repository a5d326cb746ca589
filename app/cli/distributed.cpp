#include "cli/distributed.h"

#include <c10/util/Exception.h>

#include "cli/cli_common.h"
#include "util/error.h"
#include "util/threads.h"

namespace poslab::cli {

void addDistOptions(CLI::App* cmd, DistOptions& o) {
  cmd->add_option("--dist-timeout", o.timeoutSeconds,
                  "under torchrun or srun: seconds after which a rank that died or cannot be "
                  "reached stops the others")
      ->check(integerIn(1, 24 * 3600))
      ->capture_default_str();
}

std::unique_ptr<dist::DistGroup> joinLaunch(const DistOptions& o, long long batch) {
  const std::optional<dist::DistEnv> env = dist::readDistEnv();
  if (!env) return nullptr;
  if (batch > 0 && batch % env->worldSize != 0)
    throw InvalidArgument("--batch " + std::to_string(batch) + " is not a multiple of the " +
                              std::to_string(env->worldSize) + " processes of the launch (" +
                              env->launcher + ")",
                          "use a batch that is a multiple of the process count");
  shareCoresBetweenProcesses(env->localWorldSize);
  return dist::DistGroup::connect(*env, std::chrono::seconds(o.timeoutSeconds));
}

void runReportingFailure(dist::DistGroup* group, const std::function<void()>& body) {
  if (!group) return body();
  try {
    body();
  } catch (const c10::Error& e) {
    group->reportFailure(e.what_without_backtrace());
    throw;
  } catch (const std::exception& e) {
    group->reportFailure(e.what());
    throw;
  }
}

}  // namespace poslab::cli
