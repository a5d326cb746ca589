#include "util/threads.h"

#include <ATen/Parallel.h>
#include <dlfcn.h>
#include <malloc.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "util/error.h"

namespace poslab {

namespace {
// Debian's torch calls BLAS from inside its own intra-op threads; an OpenBLAS that also starts one
// thread per core oversubscribes the machine (measured: 2 torch x 2 OpenBLAS threads on 2 cores
// train 3x slower than 2 x 1). Pin OpenBLAS to one thread when it is the loaded BLAS.
void limitBlasThreads() {
  using SetThreads = void (*)(int);
  for (const char* symbol : {"openblas_set_num_threads", "goto_set_num_threads"}) {
    if (auto fn = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, symbol))) {
      fn(1);
      return;
    }
  }
}

// glibc returns freed memory at the top of its heap to the system once more than the trim
// threshold is free, and serves blocks above the mmap threshold by fresh mappings; a training
// step frees and allocates the same tens of megabytes of tensors each time, so both made the
// kernel fault the same pages in again on every step (15 % of a kernel-LM paper step, mostly
// page faults; docs/performance/fused_attention.md). Tensors up to 256 MB now come from the heap,
// and up to 1 GB of freed heap is kept for the next step (measured: 3.6 -> 1.1 s of system time
// over four steps, peak RSS +6 %); releaseFreedMemory() hands it back when a run ends.
void keepFreedMemoryForReuse() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 256 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
#endif
}

int hardwareCores() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

// The variable that sets the count (the first of POSLAB_THREADS, OMP_NUM_THREADS that is set),
// or nullptr.
const char* threadVariable() {
  for (const char* name : {"POSLAB_THREADS", "OMP_NUM_THREADS"})
    if (std::getenv(name) != nullptr) return name;
  return nullptr;
}

// Starts as many threads as torch's pools of n threads hold at once, alive at the same time, then
// ends them: at::set_num_threads(n) starts n pthreadpool workers and waits for them, and OpenMP's
// first parallel region n - 1 more. Under a small address-space limit (ulimit -v: each thread
// reserves its stack) or process limit (ulimit -u) the pool could not start its workers and waited
// for them forever (720 MB, or ulimit -u 3: a hang in at::set_num_threads); this finds that out
// first and throws a one-line Error instead.
void checkThreadsCanStart(int n) {
  const int workers = 2 * n - 1;
  std::mutex m;
  std::condition_variable cv;
  bool release = false;
  std::vector<std::thread> started;
  std::string failure;
  for (int i = 0; i < workers && failure.empty(); ++i) {
    try {
      started.emplace_back([&] {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return release; });
      });
    } catch (const std::system_error& e) {
      failure = e.code().message();
    }
  }
  {
    std::lock_guard<std::mutex> lock(m);
    release = true;
  }
  cv.notify_all();
  for (std::thread& t : started) t.join();
  if (!failure.empty())
    throw Error("cannot start " + std::to_string(n) + (n == 1 ? " thread" : " threads") +
                " (torch's pools need " + std::to_string(workers) + " at once: " + failure +
                "): the address-space limit (ulimit -v, each thread reserves its stack) or the "
                "process limit (ulimit -u) is too small; " +
                (n == 1 ? "raise the limit" : "set POSLAB_THREADS=1 or raise the limit"));
}

int configured = 0;
}  // namespace

int requestedThreadsFromEnvironment(int cores) {
  const char* name = threadVariable();
  // OMP_NUM_THREADS set aside at start because libgomp would have complained about it
  // (app/blas_threads_preinit.cpp): refused below under its own name.
  const char* setAside = std::getenv("POSLAB_REFUSED_OMP_NUM_THREADS");
  if (name == nullptr && setAside != nullptr) name = "OMP_NUM_THREADS";
  if (name == nullptr) return 0;
  const std::string value =
      std::getenv(name) != nullptr ? std::getenv(name) : std::string(setAside);
  const long long most = static_cast<long long>(kMaxThreadsPerCore) * std::max(1, cores);
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(value.c_str(), &end, 10);
  // Digits only: strtoll would take " 2", "+2" and "2 " as well.
  const bool digits = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || *end != '\0' || errno == ERANGE || n < 1 || n > most)
    throw InvalidArgument(std::string(name) + " = '" + value + "' is not a whole number in [1, " +
                              std::to_string(most) + "]",
                          "the thread count; this machine has " + std::to_string(cores) +
                              (cores == 1 ? " core" : " cores") + ", unset " + name +
                              " to use them all");
  return static_cast<int>(n);
}

int configureThreads() {
  const int requested = requestedThreadsFromEnvironment(hardwareCores());
  const int n = requested > 0 ? requested : hardwareCores();
  limitBlasThreads();
  keepFreedMemoryForReuse();
  checkThreadsCanStart(n);
  at::set_num_threads(n);
  configured = n;
  return n;
}

int configuredThreads() {
  return configured;
}

void releaseFreedMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

int shareCoresBetweenProcesses(int processes) {
  if (threadVariable() != nullptr || processes <= 1) return at::get_num_threads();
  const int n = std::max(1, hardwareCores() / processes);
  at::set_num_threads(n);
  configured = n;
  return n;
}

int intraOpThreads() {
  return at::get_num_threads();
}

void setThisThreadIntraOpThreads(int n) {
  // torch's lazy per-thread init runs first (get_num_threads), or it would undo ours at the first
  // parallel op.
  (void)at::get_num_threads();
  using SetThreads = void (*)(int);
  if (auto fn = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads")))
    fn(n < 1 ? 1 : n);
  // An MKL LibTorch sets MKL's own per-thread count in that init, which OpenMP's does not change.
  // MKL's C function is MKL_Set_Num_Threads_Local (int by value; mkl_service.h maps the lower-case
  // name to it by a macro). The exported lower-case symbol is the Fortran interface, which takes
  // an int* and crashed when given the count (PyPI's LibTorch 2.x, which links MKL statically).
  using SetLocal = int (*)(int);
  if (auto fn = reinterpret_cast<SetLocal>(dlsym(RTLD_DEFAULT, "MKL_Set_Num_Threads_Local")))
    fn(n < 1 ? 1 : n);
}

}  // namespace poslab
