#include "io/atomic_file.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "util/error.h"

namespace poslab {

namespace fs = std::filesystem;

namespace {
constexpr int kMaxSymlinkHops = 40;  // as Linux's MAXSYMLINKS
// A temporary whose writer cannot be told apart from a live one is removed after this long.
constexpr auto kStaleAge = std::chrono::hours(1);

// The temporaries being written now, for removeTemporariesInFlight (a signal handler): fixed
// storage, a slot's path readable once `ready` is set.
constexpr int kInFlightSlots = 16;
constexpr size_t kInFlightPathBytes = 4096;
char inFlightPath[kInFlightSlots][kInFlightPathBytes];
std::atomic<bool> inFlightClaimed[kInFlightSlots];
std::atomic<bool> inFlightReady[kInFlightSlots];

// Holds one slot while a temporary exists (none when all are taken or the path is too long: the
// write goes on, untracked).
class TemporaryInFlight {
 public:
  explicit TemporaryInFlight(const fs::path& tmp) {
    const std::string p = tmp.string();
    if (p.size() >= kInFlightPathBytes) return;
    for (int i = 0; i < kInFlightSlots; ++i) {
      bool expected = false;
      if (!inFlightClaimed[i].compare_exchange_strong(expected, true)) continue;
      std::memcpy(inFlightPath[i], p.c_str(), p.size() + 1);
      inFlightReady[i] = true;
      slot_ = i;
      return;
    }
  }
  ~TemporaryInFlight() {
    if (slot_ < 0) return;
    inFlightReady[slot_] = false;
    inFlightClaimed[slot_] = false;
  }
  TemporaryInFlight(const TemporaryInFlight&) = delete;
  TemporaryInFlight& operator=(const TemporaryInFlight&) = delete;

 private:
  int slot_ = -1;
};

// The file a write to `path` must replace: symlinks followed (a dangling one to its target).
fs::path resolveTarget(const std::string& path) {
  fs::path p(path);
  for (int hop = 0; hop < kMaxSymlinkHops; ++hop) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec))) return p;
    const fs::path link = fs::read_symlink(p, ec);
    if (ec) throw Error("cannot write " + path + ": " + ec.message());
    p = link.is_absolute() ? link : p.parent_path() / link;
  }
  throw Error("cannot write " + path + ": too many levels of symbolic links");
}

const char* kindOf(fs::file_type t) {
  switch (t) {
    case fs::file_type::directory:
      return "a directory";
    case fs::file_type::fifo:
      return "a FIFO";
    case fs::file_type::character:
      return "a character device";
    case fs::file_type::block:
      return "a block device";
    case fs::file_type::socket:
      return "a socket";
    default:
      return "not a regular file";
  }
}

// Temporaries are ".NAME.tmp-PID-RANDOM" beside the target, so that a later write can tell its
// own target's leftovers (a writer killed mid-write) from anything else.
std::string temporaryPrefix(const fs::path& target) {
  return "." + target.filename().string() + ".tmp-";
}

bool writerIsGone(const std::string& suffix) {
  const auto dash = suffix.find('-');
  if (dash == std::string::npos || dash == 0) return false;
  const std::string digits = suffix.substr(0, dash);  // outlives `end`, which points into it
  char* end = nullptr;
  const long pid = std::strtol(digits.c_str(), &end, 10);
  if (*end != '\0' || pid <= 0) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

// Removes temporaries of `target` left by writers that have exited, or older than kStaleAge.
void removeStaleTemporaries(const fs::path& dir, const fs::path& target) {
  const std::string prefix = temporaryPrefix(target);
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) != 0 || !it->is_regular_file(ec)) continue;
    const auto age = fs::file_time_type::clock::now() - it->last_write_time(ec);
    if (ec) continue;
    if (writerIsGone(name.substr(prefix.size())) || age > kStaleAge) fs::remove(it->path(), ec);
  }
}
}  // namespace

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const fs::path target = resolveTarget(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::is_directory(dir)) {
    throw Error("cannot write " + path + ": directory " + dir.string() + " does not exist");
  }
  std::error_code ec;
  const fs::file_status st = fs::status(target, ec);
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw Error("cannot write " + path + ": it is " + kindOf(st.type()),
                "give the path of a regular file");
  removeStaleTemporaries(dir, target);
  std::random_device rd;
  const fs::path tmp =
      dir / (temporaryPrefix(target) + std::to_string(::getpid()) + "-" + std::to_string(rd()));
  const TemporaryInFlight tracked(tmp);  // before it exists: a signal may come at any point
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write " + path + ": " + std::strerror(errno));
    try {
      write(out);
    } catch (...) {
      out.close();
      fs::remove(tmp, ec);
      throw;
    }
    out.flush();
    if (!out) {
      out.close();
      fs::remove(tmp, ec);
      throw Error("writing " + path + " failed (disk full?)", "the previous file is unchanged");
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(tmp, ec);
    throw Error("cannot replace " + path + ": " + why, "the previous file is unchanged");
  }
}

void removeTemporariesInFlight() {
  for (int i = 0; i < kInFlightSlots; ++i)
    if (inFlightReady[i].load()) ::unlink(inFlightPath[i]);
}

}  // namespace poslab
