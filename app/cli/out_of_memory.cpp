#include "cli/out_of_memory.h"

#include <sys/resource.h>

#include <cstdio>
#include <regex>

namespace poslab::cli {

namespace {
std::string formatBytes(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024 && u < 5) bytes /= 1024, ++u;
  char text[64];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return text;
}
}  // namespace

bool isAllocationFailure(const std::string& message) {
  for (const char* phrase :
       {"can't allocate memory", "Cannot allocate memory", "out of memory", "std::bad_alloc"})
    if (message.find(phrase) != std::string::npos) return true;
  return false;
}

std::string outOfMemoryMessage(const std::string& command, const std::string& message) {
  std::string text = "out of memory while ";
  text += command.empty() ? std::string("starting") : "running `" + command + "`";
  std::string details;
  std::smatch size;
  if (std::regex_search(message, size, std::regex("allocate ([0-9]+) bytes")))
    details = "an allocation of " + formatBytes(std::stod(size[1].str())) + " failed";
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    details += (details.empty() ? "" : "; ") + std::string("this process may use at most ") +
               formatBytes(static_cast<double>(limit.rlim_cur)) + " of address space (ulimit -v)";
  if (!details.empty()) text += " (" + details + ")";
  return text +
         ": ask for less (a shorter length, fewer lags, sequences or samples) or raise "
         "the memory limit";
}

}  // namespace poslab::cli
