// Writing files so that a crash or a full disk never leaves a half-written file in place of the
// user's previous one: write to a temporary file beside the target, flush, then rename.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace poslab {

// Calls write(stream) on a temporary file ".NAME.tmp-PID-RANDOM" beside the target and renames it
// over `path`. A symlink at `path` is followed: the file it points to is replaced, the link stays.
// Throws Error naming the path if the target is not a regular file (a directory, FIFO or device),
// the directory is missing, the write fails, or the rename fails; the old file is kept.
// Temporaries of the same target left by a writer that was killed (its process is gone, or it is
// over an hour old) are removed first.
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);

// Removes the temporaries writeFileAtomically is writing now (at most 16 at once are tracked).
// Async-signal-safe: for a SIGINT or SIGTERM handler that then ends the process, so that an
// interrupted write (a CSV of 400 MB) leaves nothing behind.
void removeTemporariesInFlight();

}  // namespace poslab
