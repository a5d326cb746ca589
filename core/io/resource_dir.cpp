#include "io/resource_dir.h"

#include <cstdlib>
#include <filesystem>

#ifndef POSLAB_RESOURCE_DIR
#define POSLAB_RESOURCE_DIR "resources"
#endif

namespace poslab {

namespace {

// <prefix>/share/poslab/resources for the running executable <prefix>/bin/NAME, or empty.
std::string installedResourceDirectory() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return {};
  const fs::path dir = exe.parent_path().parent_path() / "share" / "poslab" / "resources";
  return fs::is_directory(dir, ec) ? dir.string() : std::string();
}

}  // namespace

std::string resourceDirectory() {
  if (const char* env = std::getenv("POSLAB_RESOURCES"); env && *env) return env;
  static const std::string installed = installedResourceDirectory();
  if (!installed.empty()) return installed;
  return POSLAB_RESOURCE_DIR;
}

}  // namespace poslab
