#include "util/threads.h"

#include <ATen/Parallel.h>
#include <dlfcn.h>
#include <malloc.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

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
}  // namespace

int configureThreads() {
  int n = static_cast<int>(std::thread::hardware_concurrency());
  if (const char* env = std::getenv("POSLAB_THREADS")) {
    const int requested = std::atoi(env);
    if (requested > 0) n = requested;
  }
  if (n < 1) n = 1;
  limitBlasThreads();
  keepFreedMemoryForReuse();
  at::set_num_threads(n);
  return n;
}

void releaseFreedMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

int shareCoresBetweenProcesses(int processes) {
  if (std::getenv("POSLAB_THREADS") != nullptr || processes <= 1) return at::get_num_threads();
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const int n = std::max(1, cores / processes);
  at::set_num_threads(n);
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
