// Thread configuration for LibTorch. Debian's torch starts with one intra-op thread; PosLab sets
// the count explicitly from the machine's cores (or POSLAB_THREADS) once at startup.
#pragma once

namespace poslab {

// Sets torch's intra-op threads to POSLAB_THREADS if set, else the hardware core count.
// Returns the count used.
int configureThreads();

}  // namespace poslab
