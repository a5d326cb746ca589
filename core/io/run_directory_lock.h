// A run directory has one writer at a time. Two `train --out D` (with or without --force) at once
// replaced each other's files and mixed their metrics lines, both exiting 0; now the second is
// refused up front, naming the process that holds the directory.
#pragma once

#include <string>

namespace poslab {

// Holds an exclusive flock(2) on DIR/.lock for its lifetime (the kernel releases it when the
// process ends, however it ends, so a killed run never leaves the directory locked). The file
// holds the owner's pid for the message of the writer that is refused; it is left in place (a
// removed lock file would let two writers lock two different files).
class RunDirectoryLock {
 public:
  // Creates DIR if missing and takes the lock. Throws InvalidArgument naming `option` (e.g.
  // "--out"), DIR and the holder's pid when another process holds it, Error when DIR cannot be
  // created or the lock file cannot be opened. With the lock held, temporaries that a killed
  // writer left in DIR (".NAME.tmp-...", io/atomic_file.h) are removed: no one else writes there.
  RunDirectoryLock(const std::string& dir, const std::string& option);
  ~RunDirectoryLock();
  RunDirectoryLock(const RunDirectoryLock&) = delete;
  RunDirectoryLock& operator=(const RunDirectoryLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace poslab
