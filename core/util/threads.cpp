#include "util/threads.h"

#include <ATen/Parallel.h>
#include <dlfcn.h>

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
}  // namespace

int configureThreads() {
  int n = static_cast<int>(std::thread::hardware_concurrency());
  if (const char* env = std::getenv("POSLAB_THREADS")) {
    const int requested = std::atoi(env);
    if (requested > 0) n = requested;
  }
  if (n < 1) n = 1;
  limitBlasThreads();
  at::set_num_threads(n);
  return n;
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
