// at::parallel_for with the caller's thread-local state in every thread.
//
// LibTorch 1.13's OpenMP backend runs the chunks on its worker threads with their own
// thread-local state: grad mode on there even when the caller turned it off (inside a custom
// autograd function's forward or backward), so a worker would record an autograd graph for the
// chunk's operations or refuse an out= product whose operands require grad. parallelFor captures
// the caller's state (grad mode, inference mode, dispatch keys) and sets it in each chunk.
#pragma once

#include <ATen/Parallel.h>
#include <ATen/ThreadLocalState.h>

#include <cstdint>

namespace poslab {

// True when core/ was compiled with OpenMP (core/CMakeLists.txt): only then do parallelFor's
// chunks (and at::parallel_for's in core/) run on several threads; otherwise on the caller's.
bool parallelLoopsRunInParallel();

// body(begin, end) over [begin, end) in chunks of at least `grain` on the intra-op threads.
template <typename Body>
void parallelFor(int64_t begin, int64_t end, int64_t grain, const Body& body) {
  const at::ThreadLocalState callerState;
  at::parallel_for(begin, end, grain, [&](int64_t b, int64_t e) {
    at::ThreadLocalStateGuard guard(callerState);
    body(b, e);
  });
}

}  // namespace poslab
