// Stopping long work that cannot take a stop argument: a thread names a flag for the work it
// calls (ScopedCancellation), and the long loops deep inside it (reading a 1 GiB corpus, checking
// its UTF-8) ask throwIfCancelled() between chunks. The training worker uses it so that the
// window's Stop, or new runs replacing these, does not wait for a run still reading its corpus.
#pragma once

#include <atomic>

#include "util/error.h"

namespace poslab {

// Thrown by throwIfCancelled once the current thread's flag is set.
class Cancelled : public Error {
 public:
  using Error::Error;
};

// While it lives, throwIfCancelled() on this thread reads `flag` (the caller's; it must outlive
// this). Nested scopes restore the outer flag when they end.
class ScopedCancellation {
 public:
  explicit ScopedCancellation(const std::atomic<bool>* flag);
  ~ScopedCancellation();
  ScopedCancellation(const ScopedCancellation&) = delete;
  ScopedCancellation& operator=(const ScopedCancellation&) = delete;

 private:
  const std::atomic<bool>* outer_;
};

// Throws Cancelled when this thread's flag (ScopedCancellation) is set; nothing without one.
void throwIfCancelled();

}  // namespace poslab
