// Reading a file the user named (a session, preset, config, checkpoint or text corpus) so that no
// path can hang or exhaust memory: only regular files are opened (a FIFO, a device or a directory
// is refused before any read), and a file over the limit of its kind is refused by its size.
#pragma once

#include <cstdint>
#include <string>

namespace poslab {

// Limits by kind of input, in bytes. Generous for real files, small against /dev/zero.
constexpr std::uintmax_t kMaxJsonInputBytes = 16ull << 20;  // sessions, presets, configs
constexpr std::uintmax_t kMaxTextInputBytes = 1ull << 30;   // byte-lm corpora
constexpr std::uintmax_t kMaxCheckpointBytes = 4ull << 30;  // model checkpoints

// The whole content of `path`. `what` names the input in messages ("preset file", "--config").
// Throws InvalidArgument naming `what` and the path when the path does not exist, is not a
// regular file, is larger than maxBytes, or cannot be read; Cancelled (util/cancellation.h) when
// the thread's stop flag is set between its 64 KiB reads.
std::string readInputFile(const std::string& path, const std::string& what,
                          std::uintmax_t maxBytes);
// The same checks without reading the content (a corpus checked when a session loads); returns
// the file's size in bytes.
std::uintmax_t checkInputFile(const std::string& path, const std::string& what,
                              std::uintmax_t maxBytes);

}  // namespace poslab
