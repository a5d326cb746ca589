#include "io/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/cancellation.h"
#include "util/error.h"

namespace poslab {

namespace {

std::string sizeText(std::uintmax_t bytes) {
  if (bytes >= (1ull << 20)) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

// Closes a descriptor on every path out of readInputFile.
struct FileDescriptor {
  int fd;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// Opens `path` for reading after the checks both functions share; returns its size.
std::uintmax_t openChecked(const std::string& path, const std::string& what,
                           std::uintmax_t maxBytes, FileDescriptor& file) {
  const std::string name = what + " '" + path + "'";
  if (path.empty()) throw InvalidArgument(what + ": the path is empty");
  // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
  file.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (file.fd < 0) {
    const int err = errno;
    if (err == ENOENT) throw InvalidArgument(name + " does not exist");
    throw InvalidArgument("cannot open " + name + ": " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(file.fd, &st) != 0)
    throw InvalidArgument("cannot read " + name + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw InvalidArgument(name + " is a directory, not a file");
  if (!S_ISREG(st.st_mode))
    throw InvalidArgument(name + " is not a regular file (a pipe, device or socket)",
                          "give the path of a file");
  if (static_cast<std::uintmax_t>(st.st_size) > maxBytes)
    throw InvalidArgument(name + " is " + sizeText(static_cast<std::uintmax_t>(st.st_size)) +
                          ", larger than the " + sizeText(maxBytes) + " such a file may have");
  return static_cast<std::uintmax_t>(st.st_size);
}

}  // namespace

std::uintmax_t checkInputFile(const std::string& path, const std::string& what,
                              std::uintmax_t maxBytes) {
  FileDescriptor file{-1};
  return openChecked(path, what, maxBytes, file);
}

std::string readInputFile(const std::string& path, const std::string& what,
                          std::uintmax_t maxBytes) {
  const std::string name = what + " '" + path + "'";
  FileDescriptor file{-1};
  const std::uintmax_t size = openChecked(path, what, maxBytes, file);
  // The size can change while reading (or be 0 for /proc files): read at most maxBytes + 1.
  std::string data;
  data.reserve(static_cast<size_t>(size));
  char buffer[1 << 16];
  for (;;) {
    throwIfCancelled();  // a worker told to stop does not finish reading a 1 GiB corpus first
    const ssize_t n = ::read(file.fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InvalidArgument("cannot read " + name + ": " + std::strerror(errno));
    }
    if (n == 0) break;
    data.append(buffer, static_cast<size_t>(n));
    if (data.size() > maxBytes)
      throw InvalidArgument(name + " is larger than the " + sizeText(maxBytes) +
                            " such a file may have");
  }
  return data;
}

}  // namespace poslab
