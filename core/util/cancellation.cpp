#include "util/cancellation.h"

namespace poslab {

namespace {
thread_local const std::atomic<bool>* currentFlag = nullptr;
}  // namespace

ScopedCancellation::ScopedCancellation(const std::atomic<bool>* flag) : outer_(currentFlag) {
  currentFlag = flag;
}

ScopedCancellation::~ScopedCancellation() {
  currentFlag = outer_;
}

void throwIfCancelled() {
  if (currentFlag != nullptr && currentFlag->load(std::memory_order_relaxed))
    throw Cancelled("stopped");
}

}  // namespace poslab
