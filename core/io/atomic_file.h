// Writing files so that a crash or a full disk never leaves a half-written file in place of the
// user's previous one: write to a temporary file beside the target, flush, then rename.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace poslab {

// Calls write(stream) on a temporary file and renames it over `path`. Throws Error naming the
// path if the directory is missing, the write fails, or the rename fails; the old file is kept.
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace poslab
