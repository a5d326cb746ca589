// poslab-cli: everything PosLab computes that is not drawing, for scripts, batch runs and CI.
// Every command takes --json; errors are one line on stderr and exit code 2.
#include <CLI/CLI.hpp>

#include <c10/util/Exception.h>

#include <csignal>
#include <iostream>
#include <limits>
#include <string>

#include "cli/cli_common.h"
#include "cli/empty_values.h"
#include "cli/out_of_memory.h"
#include "cli/stop_signals.h"
#include "io/atomic_file.h"
#include "limits/work_budget.h"
#include "util/error.h"
#include "util/threads.h"

namespace {
// The subcommand being run (empty before one was parsed), for messages about it.
std::string chosenCommand(CLI::App& app) {
  for (const auto* sub : app.get_subcommands()) return sub->get_name();
  return {};
}
}  // namespace

// SIGINT or SIGTERM outside a sweep (whose StopSignals ask it to stop cleanly): the file being
// written is left as it was, its temporary removed, and the process ends as the signal's default.
extern "C" void endOnSignal(int sig) {
  poslab::removeTemporariesInFlight();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

int main(int argc, char** argv) {
  // Past a file-size limit (ulimit -f) the kernel's SIGXFSZ killed a run mid-write (exit 153),
  // leaving a temporary behind; ignored, the write fails with EFBIG and the writer reports it,
  // removing its temporary (io/atomic_file.h).
  std::signal(SIGXFSZ, SIG_IGN);
  std::signal(SIGINT, endOnSignal);
  std::signal(SIGTERM, endOnSignal);
  CLI::App app{"PosLab: a laboratory for relative positional encodings (headless tool)",
               "poslab-cli"};
  app.require_subcommand(1);
  // The work budgets (limits/work_budget.h, docs/LIMITS.md) are raised for one command by an
  // explicit factor; accepted before or after the command's name (fallthrough).
  app.fallthrough();
  app.add_option_function<std::string>(
         "--budget", [](const std::string& v) { poslab::setWorkBudgetScale(std::stod(v)); },
         "multiply every work and memory budget by FACTOR, for a request you mean to run "
         "(docs/LIMITS.md)")
      ->type_name("FACTOR")
      ->check(poslab::cli::numberIn(1e-6, 1e15))
      ->trigger_on_parse();
  app.add_flag_callback(
         "--no-budget", [] { poslab::setWorkBudgetScale(std::numeric_limits<double>::infinity()); },
         "lift every work and memory budget (the request may run for hours or exhaust memory)")
      ->trigger_on_parse();
  app.set_help_all_flag("--help-all", "show help for every command");
  poslab::cli::addFamiliesCommand(app);
  poslab::cli::addKernelCommand(app);
  poslab::cli::addProbeCommand(app);
  poslab::cli::addNormsCommand(app);
  poslab::cli::addAttentionCommand(app);
  poslab::cli::addDiagnoseCommand(app);
  poslab::cli::addTrainCommand(app);
  poslab::cli::addEvalCommand(app);
  poslab::cli::addCompareCommand(app);
  poslab::cli::addRunCommand(app);
  poslab::cli::addResponseCommand(app);
  poslab::cli::addPopeUsageCommand(app);
  poslab::cli::addTaskKernelCommand(app);
  poslab::cli::addLessonCommand(app);
  poslab::cli::refuseEmptyValues(app);
  poslab::cli::setCommandLine(argc, argv);
  try {
    // CLI11 would say only "A subcommand is required" for a misspelt command.
    if (argc > 1 && argv[1][0] != '-') {
      const std::string name = argv[1];
      std::string known;
      bool found = false;
      for (const auto* sub : app.get_subcommands({})) {
        known += (known.empty() ? "" : ", ") + sub->get_name();
        found = found || sub->get_name() == name;
      }
      if (!found)
        throw poslab::InvalidArgument("unknown command '" + name + "'", "commands: " + known);
    }
    poslab::configureThreads();
    app.parse(argc, argv);
    poslab::cli::checkStdoutWritten();
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "poslab-cli: error: " << e.what() << "\n";
    return 2;
  } catch (const poslab::cli::StoppedBySignal& e) {
    std::cerr << "poslab-cli: " << e.what() << "\n";
    return e.exitCode;
  } catch (const poslab::Error& e) {
    std::cerr << "poslab-cli: error: " << e.what() << "\n";
    return 2;
  } catch (const c10::Error& e) {
    const std::string message = e.what_without_backtrace();
    std::cerr << "poslab-cli: error: "
              << (poslab::cli::isAllocationFailure(message)
                      ? poslab::cli::outOfMemoryMessage(chosenCommand(app), message)
                      : message)
              << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "poslab-cli: error: " << poslab::cli::outOfMemoryMessage(chosenCommand(app), "")
              << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "poslab-cli: error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
