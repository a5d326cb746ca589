// OpenBLAS starts its threads when it is loaded, before main, one per core unless
// OPENBLAS_NUM_THREADS says otherwise; under a process limit (ulimit -u) that left it no thread it
// printed its own message and ended the program (exit 130) before PosLab could say anything.
// PosLab runs BLAS on one thread anyway (util/threads.cpp: torch's threads call it). So under a
// small process limit, before any library is initialised, the program starts itself again with
// OPENBLAS_NUM_THREADS=1 added to its environment (unless it is set already): the executable's
// preinit array runs before every shared library's initialisers, libc's included, which is why
// this reads the environment from its arguments, adds nothing to it in place (libc's start resets
// it) and calls only system-call wrappers. The threads PosLab itself starts are checked by
// configureThreads, which names the limit in one line.
#include <sys/resource.h>
#include <unistd.h>

#include <cstring>

namespace {

// Below this many processes a user may run, OpenBLAS's threads may not fit; above it the re-start
// (a second load of LibTorch, a few hundred ms) is not worth it.
constexpr rlim_t kSmallProcessLimit = 4096;
constexpr int kMaxEnvironment = 4096;  // entries copied; a larger environment is left alone

char kOneThread[] = "OPENBLAS_NUM_THREADS=1";
char* environment[kMaxEnvironment + 2];

void oneBlasThread(int, char** argv, char** envp) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NPROC, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
      limit.rlim_cur >= kSmallProcessLimit)
    return;
  int n = 0;
  for (; envp[n] != nullptr; ++n) {
    if (std::strncmp(envp[n], "OPENBLAS_NUM_THREADS=", 21) == 0 || n >= kMaxEnvironment) return;
    environment[n] = envp[n];
  }
  environment[n] = kOneThread;
  environment[n + 1] = nullptr;
  execve("/proc/self/exe", argv, environment);  // returns only when it fails: go on as we are
}

}  // namespace

// Only an executable may have a preinit array; each of PosLab's lists this file in its sources.
using PreinitFunction = void (*)(int, char**, char**);
__attribute__((section(".preinit_array"), used)) static PreinitFunction oneBlasThreadAtStart =
    oneBlasThread;
