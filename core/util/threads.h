// Thread configuration for LibTorch. Debian's torch starts with one intra-op thread; PosLab sets
// the count explicitly from the machine's cores (or POSLAB_THREADS) once at startup.
#pragma once

namespace poslab {

// The most threads a process may ask for: kMaxThreadsPerCore times the hardware cores. More
// threads than that only oversubscribe the machine (POSLAB_THREADS=99999 never finished a run).
constexpr int kMaxThreadsPerCore = 4;

// The thread count the environment asks for, read in this one place: POSLAB_THREADS if set, else
// OMP_NUM_THREADS if set, else 0 (none asked for). A value that is not a whole number in
// [1, kMaxThreadsPerCore * cores] (empty, 0, -1, abc, 2.5, 1e9, 99999) throws InvalidArgument
// naming the variable and the range. `cores` is the machine's core count.
int requestedThreadsFromEnvironment(int cores);

// Sets torch's intra-op threads to requestedThreadsFromEnvironment() if any, else the hardware
// core count, pins OpenBLAS to one thread, and has glibc keep freed memory for reuse (threads.cpp
// says why). Returns the count used; throws InvalidArgument for a bad variable (nothing is set),
// and Error when that many threads cannot start (a small ulimit -v or -u: torch's pool hung on it).
int configureThreads();

// The count configureThreads() set (0 before it ran): what --json output and run files report.
int configuredThreads();

// Returns the freed memory configureThreads() has glibc keep to the system (after a run ends).
void releaseFreedMemory();

// For `processes` PosLab processes started side by side on this machine (a distributed launch's
// local ranks): the cores split between them, at least one thread each, unless POSLAB_THREADS or
// OMP_NUM_THREADS is set. Returns the count used.
int shareCoresBetweenProcesses(int processes);

// The calling thread's intra-op thread count.
int intraOpThreads();

// Sets the intra-op thread count of the calling thread only (OpenMP's per-thread setting), for
// work that runs several torch jobs side by side. at::set_num_threads would also change the
// default that threads started later take.
void setThisThreadIntraOpThreads(int n);

}  // namespace poslab
