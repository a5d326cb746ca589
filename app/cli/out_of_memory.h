// An allocation that failed (std::bad_alloc, or LibTorch's allocator error inside a c10::Error)
// becomes one line that names the command that needed the memory, the size asked for when known,
// and the process's address-space limit when one is set: exit code 2, never an abort.
#pragma once

#include <string>

namespace poslab::cli {

// True when a c10::Error's message (without its backtrace) is LibTorch's report of a failed
// allocation ("DefaultCPUAllocator: can't allocate memory: you tried to allocate N bytes").
bool isAllocationFailure(const std::string& message);

// "out of memory while running `kernel` (an allocation of 2.1 GiB failed; this process may use
// at most 600 MiB of address space, ulimit -v): ask for less, ...". `command` is the subcommand's
// name (empty before one was chosen); `message` is LibTorch's, or empty for std::bad_alloc.
std::string outOfMemoryMessage(const std::string& command, const std::string& message);

}  // namespace poslab::cli
