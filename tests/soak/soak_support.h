// What the soak programs share: the memory measurements, the command line (--cycles N), and the
// "memory flat" check. Memory is read at one tenth of the cycles (after warm-up: allocator pools,
// torch's and Qt's one-time caches) and at the end; the growth between them must stay under a
// stated margin. A leak of one tiny trainer per cycle (weights + AdamW state, ~90 KiB) over 900
// cycles is ~80 MiB, far above the margin; LeakSanitizer (scripts/asan.sh) catches smaller leaks
// of unreachable memory, this check catches memory that stays reachable (a growing queue,
// history, or list of dead runs).
//
// Two measurements. The live heap (bytes the program has allocated and not freed, as the
// allocator counts them: ASan's count, or glibc's mallinfo2) is what a leak of reachable memory
// grows; it is checked wherever it can be read (not under a preloaded LSan, liveHeapBytes). RSS is
// what a user sees; it is checked in an uninstrumented build only. Under ASan RSS also holds the
// sanitizer's own bookkeeping, which grows with every thread a cycle starts (docs/RELIABILITY.md:
// measured, the live heap stays flat while it grows), so there it is printed, not judged.
#pragma once

#include <malloc.h>
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
constexpr long long kMemoryMarginBytes = 24ll << 20;
// Each wait for a step or a state change; a step of the tiny models takes milliseconds.
constexpr auto kDeadline = std::chrono::seconds(60);

inline long long residentBytes() {
  std::ifstream statm("/proc/self/statm");
  long long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<long long>(::sysconf(_SC_PAGESIZE));
}

}  // namespace poslab::soak

// The sanitizer runtimes' count of live heap bytes (sanitizer/allocator_interface.h), weak so that
// an uninstrumented build links without it; it resolves when ASan is linked in or LSan preloaded.
extern "C" size_t __sanitizer_get_current_allocated_bytes() __attribute__((weak));  // NOLINT

namespace poslab::soak {

// True when a sanitizer allocator (ASan, or LSan preloaded) serves malloc.
inline bool sanitizerAllocator() {
  return __sanitizer_get_current_allocated_bytes != nullptr;
}

// Instrumented with AddressSanitizer (gcc defines __SANITIZE_ADDRESS__, clang has the feature).
constexpr bool kAddressSanitizer =
#if defined(__SANITIZE_ADDRESS__)
    true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    true;
#else
    false;
#endif
#else
    false;
#endif

// Bytes allocated and not yet freed, or -1 where no allocator counts them reliably: ASan's own
// count (malloced minus freed) in an ASan build, glibc's (every arena, plus the blocks served by
// mmap) where glibc serves malloc. LSan preloaded into an uninstrumented build counts only what
// its threads' caches have passed back (it read 1.7 MiB where glibc reads 43 MiB): -1 there, and
// RSS, which LSan leaves undisturbed, is judged instead.
inline long long liveHeapBytes() {
  if (kAddressSanitizer && sanitizerAllocator())
    return static_cast<long long>(__sanitizer_get_current_allocated_bytes());
  if (sanitizerAllocator()) return -1;
  const struct mallinfo2 info = ::mallinfo2();
  return static_cast<long long>(info.uordblks + info.hblkhd);
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

// Records RSS and the live heap at cycle cycles/10 and at the end, and checks the growth.
class MemoryTrack {
 public:
  explicit MemoryTrack(int cycles) : first_(cycles >= 10 ? cycles / 10 : 1), last_(cycles) {}
  void afterCycle(int cycle) {
    if (cycle == first_) firstReading_ = {residentBytes(), liveHeapBytes()};
    if (cycle == last_) lastReading_ = {residentBytes(), liveHeapBytes()};
  }
  // One line for progress reports: "RSS 190.4 MiB, live heap 35.2 MiB".
  static std::string nowText() {
    char line[96];
    const long long heap = liveHeapBytes();
    const double rss_mib = residentBytes() / double(1 << 20);
    if (heap < 0)
      std::snprintf(line, sizeof line, "RSS %.1f MiB", rss_mib);
    else
      std::snprintf(line, sizeof line, "RSS %.1f MiB, live heap %.1f MiB", rss_mib,
                    heap / double(1 << 20));
    return line;
  }
  // Prints both measurements; exits 1 when a checked growth is over the margin.
  void check(const char* what) const {
    if (firstReading_.heap >= 0 && lastReading_.heap >= 0)
      report(what, "live heap", firstReading_.heap, lastReading_.heap, /*judged=*/true);
    report(what, "RSS", firstReading_.rss, lastReading_.rss, /*judged=*/!kAddressSanitizer);
  }

 private:
  struct Reading {
    long long rss = 0, heap = 0;
  };
  void report(const char* what, const char* kind, long long at_first, long long at_last,
              bool judged) const {
    const double mib = 1.0 / (1 << 20);
    const long long growth = at_last - at_first;
    std::printf(
        "%s: %s %.1f MiB at cycle %d, %.1f MiB at cycle %d: growth %.1f MiB (margin %.1f%s)\n",
        what, kind, at_first * mib, first_, at_last * mib, last_, growth * mib,
        kMemoryMarginBytes * mib, judged ? "" : ", not judged under ASan");
    std::fflush(stdout);
    if (judged && growth > kMemoryMarginBytes)
      fail(std::string(what) + ": " + kind + " is not flat");
  }
  int first_, last_;
  Reading firstReading_, lastReading_;
};

}  // namespace poslab::soak
