#include "util/threads.h"

#include <ATen/Parallel.h>

#include <cstdlib>
#include <thread>

namespace poslab {

int configureThreads() {
  int n = static_cast<int>(std::thread::hardware_concurrency());
  if (const char* env = std::getenv("POSLAB_THREADS")) {
    const int requested = std::atoi(env);
    if (requested > 0) n = requested;
  }
  if (n < 1) n = 1;
  at::set_num_threads(n);
  return n;
}

}  // namespace poslab
