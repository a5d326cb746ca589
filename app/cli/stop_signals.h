// SIGINT and SIGTERM during a long command: the first one asks the work to stop cleanly (a
// sweep checkpoints its runs in flight and says how to continue); a second one ends the process
// at once, as the default handlers would.
#pragma once

#include <atomic>
#include <stdexcept>
#include <string>

namespace poslab::cli {

class StopSignals {
 public:
  // Installs the handlers for the object's lifetime; the previous ones come back after.
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Set by the first SIGINT or SIGTERM.
  const std::atomic<bool>& requested() const;
  // The signal that set it (SIGINT or SIGTERM), 0 before.
  int signalNumber() const;
  // "SIGINT" or "SIGTERM".
  const char* signalName() const;
};

// A command that stopped on SIGINT or SIGTERM with its work saved: main prints the message (one
// line: what was saved and how to continue) and exits with 128 + the signal, as a shell expects.
class StoppedBySignal : public std::runtime_error {
 public:
  StoppedBySignal(const std::string& message, int signalNumber)
      : std::runtime_error(message), exitCode(128 + signalNumber) {}
  int exitCode;
};

// The command line poslab-cli was started with, quoted for a POSIX shell (set once by main):
// what a stopped command prints to continue.
void setCommandLine(int argc, const char* const* argv);
const std::string& commandLine();

}  // namespace poslab::cli
