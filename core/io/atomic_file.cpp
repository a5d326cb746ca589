#include "io/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "util/error.h"

namespace poslab {

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::is_directory(dir)) {
    throw Error("cannot write " + path + ": directory " + dir.string() + " does not exist");
  }
  std::random_device rd;
  const fs::path tmp = dir / ("." + target.filename().string() + ".tmp" + std::to_string(rd()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write " + path + ": " + std::strerror(errno));
    try {
      write(out);
    } catch (...) {
      out.close();
      fs::remove(tmp);
      throw;
    }
    out.flush();
    if (!out) {
      out.close();
      fs::remove(tmp);
      throw Error("writing " + path + " failed (disk full?)", "the previous file is unchanged");
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp);
    throw Error("cannot replace " + path + ": " + ec.message(), "the previous file is unchanged");
  }
}

}  // namespace poslab
