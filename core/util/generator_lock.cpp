#include "util/generator_lock.h"

namespace poslab {

std::mutex& torchGeneratorMutex() {
  static std::mutex m;
  return m;
}

}  // namespace poslab
