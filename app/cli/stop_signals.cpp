#include "cli/stop_signals.h"

#include <signal.h>

#include <csignal>

#include "io/atomic_file.h"

namespace poslab::cli {

namespace {
std::string startedAs;
std::atomic<bool> stopRequested{false};
std::atomic<int> stopSignal{0};
struct sigaction previousInt;
struct sigaction previousTerm;

extern "C" void onStopSignal(int sig) {
  if (stopRequested.load()) {  // the second signal: end now, as without a handler
    removeTemporariesInFlight();
    ::signal(sig, SIG_DFL);
    ::raise(sig);
    return;
  }
  stopSignal = sig;
  stopRequested = true;
}

// 'word' with any ' inside written as '\'' ; plain words (letters, digits, -_./=:,+@%) as they are.
std::string shellQuoted(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789-_./=:,+@%") == std::string::npos;
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
}  // namespace

void setCommandLine(int argc, const char* const* argv) {
  startedAs.clear();
  for (int i = 0; i < argc; ++i) startedAs += (i ? " " : "") + shellQuoted(argv[i]);
}

const std::string& commandLine() {
  return startedAs;
}

StopSignals::StopSignals() {
  stopRequested = false;
  stopSignal = 0;
  struct sigaction action {};
  action.sa_handler = onStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &previousInt);
  sigaction(SIGTERM, &action, &previousTerm);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &previousInt, nullptr);
  sigaction(SIGTERM, &previousTerm, nullptr);
}

const std::atomic<bool>& StopSignals::requested() const {
  return stopRequested;
}

int StopSignals::signalNumber() const {
  return stopSignal;
}

const char* StopSignals::signalName() const {
  return stopSignal == SIGINT ? "SIGINT" : "SIGTERM";
}

}  // namespace poslab::cli
