#include "util/parallel_for.h"

namespace poslab {

bool parallelLoopsRunInParallel() {
#ifdef _OPENMP
  return true;
#else
  return false;
#endif
}

}  // namespace poslab
