// poslab-cli: everything PosLab computes that is not drawing, for scripts, batch runs and CI.
// Every command takes --json; errors are one line on stderr and exit code 2.
#include <CLI/CLI.hpp>

#include <c10/util/Exception.h>

#include <iostream>
#include <string>

#include "cli/cli_common.h"
#include "cli/stop_signals.h"
#include "util/error.h"
#include "util/threads.h"

int main(int argc, char** argv) {
  CLI::App app{"PosLab: a laboratory for relative positional encodings (headless tool)",
               "poslab-cli"};
  app.require_subcommand(1);
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
    std::cerr << "poslab-cli: error: " << e.what_without_backtrace() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "poslab-cli: error: out of memory (try a smaller length)\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "poslab-cli: error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
