// OpenBLAS starts its threads when it is loaded, before main, one per core unless
// OPENBLAS_NUM_THREADS says otherwise; under a process limit (ulimit -u) that left it no thread it
// printed its own message and ended the program (exit 130) before PosLab could say anything.
// PosLab runs BLAS on one thread anyway (util/threads.cpp: torch's threads call it). So under a
// small process limit, before any library is initialised, the program starts itself again with
// OPENBLAS_NUM_THREADS=1 added to its environment (unless it is set already): the executable's
// preinit array runs before every shared library's initialisers, libc's included, which is why
// this reads the environment from its arguments, adds nothing to it in place (libc's start resets
// it) and calls only system-call wrappers. The threads PosLab itself starts are checked by
// configureThreads, which names the limit in one line. Under an address-space limit (ulimit -v)
// the same: OpenBLAS's threads and buffers took the space LibTorch's static initialisers needed
// (an uncaught bad_alloc, exit 134, at 610-700 MB), and where a thread of OpenBLAS's could not
// start, its shutdown at exit joined it for ever (a hang after the output, at 600-660 MB). In the
// same way an OMP_NUM_THREADS that libgomp would complain about before main is set aside for
// PosLab's own refusal.
#include <sys/resource.h>
#include <unistd.h>

#include <cstring>

namespace {

// Below this many processes a user may run, OpenBLAS's threads may not fit; above it the re-start
// (a second load of LibTorch, a few hundred ms) is not worth it.
constexpr rlim_t kSmallProcessLimit = 4096;
constexpr int kMaxEnvironment = 4096;  // entries copied; a larger environment is left alone

char kOneThread[] = "OPENBLAS_NUM_THREADS=1";
constexpr char kOmp[] = "OMP_NUM_THREADS=";
constexpr int kOmpLength = sizeof kOmp - 1;
// Where an OMP_NUM_THREADS that libgomp would complain about goes, so that PosLab's own one-line
// refusal (util/threads.cpp) is the only message: libgomp printed "Invalid value for environment
// variable OMP_NUM_THREADS" (with an empty line) before main for 0, -3, 0x2 or abc.
constexpr char kSetAside[] = "POSLAB_REFUSED_OMP_NUM_THREADS=";
constexpr int kSetAsideLength = sizeof kSetAside - 1;
constexpr int kMaxValue = 256;  // a longer value is left to libgomp
char setAside[kSetAsideLength + kMaxValue + 1];
char* environment[kMaxEnvironment + 2];

// Whether libgomp accepts `value` without a word: a positive whole number, or such numbers
// separated by commas (its nested-levels list).
bool ompAccepts(const char* value) {
  bool digitSeen = false, positive = false;
  for (const char* c = value;; ++c) {
    if (*c == ',' || *c == '\0') {
      if (!digitSeen || !positive) return false;
      if (*c == '\0') return true;
      digitSeen = positive = false;
    } else if (*c >= '0' && *c <= '9') {
      digitSeen = true;
      positive = positive || *c != '0';
    } else {
      return false;
    }
  }
}

void saneThreadEnvironment(int, char** argv, char** envp) {
  rlimit limit{};
  bool oneBlas = getrlimit(RLIMIT_NPROC, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
                 limit.rlim_cur < kSmallProcessLimit;
  rlimit addressSpace{};
  oneBlas = oneBlas ||
            (getrlimit(RLIMIT_AS, &addressSpace) == 0 && addressSpace.rlim_cur != RLIM_INFINITY);
  bool changed = false;
  int n = 0;
  for (int i = 0; envp[i] != nullptr; ++i) {
    if (i >= kMaxEnvironment) return;
    if (std::strncmp(envp[i], "OPENBLAS_NUM_THREADS=", 21) == 0) oneBlas = false;
    if (std::strncmp(envp[i], kOmp, kOmpLength) == 0 && !ompAccepts(envp[i] + kOmpLength) &&
        std::strlen(envp[i] + kOmpLength) <= kMaxValue) {
      std::memcpy(setAside, kSetAside, kSetAsideLength);
      std::strcpy(setAside + kSetAsideLength, envp[i] + kOmpLength);
      environment[n++] = setAside;
      changed = true;
      continue;
    }
    environment[n++] = envp[i];
  }
  if (oneBlas) {
    environment[n++] = kOneThread;
    changed = true;
  }
  if (!changed) return;
  environment[n] = nullptr;
  execve("/proc/self/exe", argv, environment);  // returns only when it fails: go on as we are
}

}  // namespace

// Only an executable may have a preinit array; each of PosLab's lists this file in its sources.
using PreinitFunction = void (*)(int, char**, char**);
__attribute__((section(".preinit_array"), used)) static PreinitFunction saneThreadsAtStart =
    saneThreadEnvironment;
