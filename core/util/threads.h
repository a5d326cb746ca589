// Thread configuration for LibTorch. Debian's torch starts with one intra-op thread; PosLab sets
// the count explicitly from the machine's cores (or POSLAB_THREADS) once at startup.
#pragma once

namespace poslab {

// Sets torch's intra-op threads to POSLAB_THREADS if set, else the hardware core count, pins
// OpenBLAS to one thread, and has glibc keep freed memory for reuse (threads.cpp says why).
// Returns the count used.
int configureThreads();

// Returns the freed memory configureThreads() has glibc keep to the system (after a run ends).
void releaseFreedMemory();

// For `processes` PosLab processes started side by side on this machine (a distributed launch's
// local ranks): the cores split between them, at least one thread each, unless POSLAB_THREADS is
// set. Returns the count used.
int shareCoresBetweenProcesses(int processes);

// The calling thread's intra-op thread count.
int intraOpThreads();

// Sets the intra-op thread count of the calling thread only (OpenMP's per-thread setting), for
// work that runs several torch jobs side by side. at::set_num_threads would also change the
// default that threads started later take.
void setThisThreadIntraOpThreads(int n);

}  // namespace poslab
