// What the fuzz harnesses share: a scratch file to hand bytes to the file readers (they open only
// regular files by path), and a check that aborts, so that libFuzzer and the replay test
// (replay_main.cpp) both report a broken property as a crash with its message.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace poslab::fuzz {

// Writes `size` bytes to one file per process and harness name in $TMPDIR (default /tmp) and
// returns its path; each call overwrites the previous content.
inline std::string writeScratchFile(const uint8_t* data, size_t size, const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  const std::string path = std::string(dir && *dir ? dir : "/tmp") + "/poslab-fuzz-" +
                           std::to_string(::getpid()) + "-" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    std::fprintf(stderr, "fuzz: cannot write the scratch file %s\n", path.c_str());
    std::abort();
  }
  return path;
}

// A property every input must keep; a failure is a finding, reported like a crash.
inline void require(bool ok, const char* property, const std::string& detail = {}) {
  if (ok) return;
  std::fprintf(stderr, "fuzz: property broken: %s%s%s\n", property, detail.empty() ? "" : ": ",
               detail.c_str());
  std::abort();
}

}  // namespace poslab::fuzz
