// What the soak programs share: the resident set size, the command line (--cycles N), and the
// "memory flat" check. RSS is read at one tenth of the cycles (after warm-up: allocator pools,
// torch's and Qt's one-time caches) and at the end; the growth between them must stay under a
// stated margin. A leak of one tiny trainer per cycle (weights + AdamW state, ~90 KiB) over 900
// cycles is ~80 MiB, far above the margin; LeakSanitizer (scripts/asan.sh) catches smaller leaks
// of unreachable memory, this check catches memory that stays reachable (a growing queue,
// history, or list of dead runs).
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

namespace poslab::soak {

// Growth allowed from the first measurement (cycle N/10) to the last (cycle N), in bytes.
constexpr long long kRssMarginBytes = 24ll << 20;
// Each wait for a step or a state change; a step of the tiny models takes milliseconds.
constexpr auto kDeadline = std::chrono::seconds(60);

inline long long residentBytes() {
  std::ifstream statm("/proc/self/statm");
  long long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<long long>(::sysconf(_SC_PAGESIZE));
}

inline int cyclesFromArgs(int argc, char** argv, int fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--cycles") == 0) return std::atoi(argv[i + 1]);
  return fallback;
}

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "SOAK FAILED: %s\n", what.c_str());
  std::exit(1);
}

// Polls `done` (after `tick`, which may process events) until true; fails after kDeadline.
inline void waitFor(const std::function<bool()>& done, const std::string& what, int cycle,
                    const std::function<void()>& tick = {}) {
  const auto end = std::chrono::steady_clock::now() + kDeadline;
  while (!done()) {
    if (std::chrono::steady_clock::now() > end)
      fail("cycle " + std::to_string(cycle) + ": timed out waiting for " + what);
    if (tick)
      tick();
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// Records RSS at cycle cycles/10 and at the end, and checks the growth.
class RssTrack {
 public:
  explicit RssTrack(int cycles) : first_(cycles >= 10 ? cycles / 10 : 1), last_(cycles) {}
  void afterCycle(int cycle) {
    if (cycle == first_) firstRss_ = residentBytes();
    if (cycle == last_) lastRss_ = residentBytes();
  }
  // Prints both measurements; exits 1 when the growth is over the margin.
  void check(const char* what) const {
    const double mib = 1.0 / (1 << 20);
    const long long growth = lastRss_ - firstRss_;
    std::printf(
        "%s: RSS %.1f MiB at cycle %d, %.1f MiB at cycle %d: growth %.1f MiB (margin %.1f)\n", what,
        firstRss_ * mib, first_, lastRss_ * mib, last_, growth * mib, kRssMarginBytes * mib);
    if (growth > kRssMarginBytes) fail(std::string(what) + ": memory is not flat");
  }

 private:
  int first_, last_;
  long long firstRss_ = 0, lastRss_ = 0;
};

}  // namespace poslab::soak
