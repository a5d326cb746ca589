#include "dist/dist_env.h"

#include <cerrno>
#include <cstdlib>
#include <limits>

#include "util/error.h"

namespace poslab::dist {

namespace {

constexpr size_t kMaxHosts = 65536;  // a Slurm job larger than this is not a PosLab job

// A whole number in [lo, hi] from variable `name`; throws naming it.
long long parseInteger(const std::string& name, const char* text, long long lo, long long hi) {
  const std::string value = text;
  size_t used = 0;
  long long v = 0;
  bool ok = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
  if (ok) {
    try {
      v = std::stoll(value, &used);
    } catch (const std::exception&) {
      ok = false;
    }
  }
  if (!ok || used != value.size())
    throw InvalidArgument("environment variable " + name + "='" + value +
                          "' is not a whole number");
  if (v < lo || v > hi)
    throw InvalidArgument("environment variable " + name + "=" + value + " is outside [" +
                          std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

const char* required(const EnvLookup& env, const std::string& name, const std::string& because) {
  const char* v = env(name.c_str());
  if (v == nullptr || *v == '\0')
    throw InvalidArgument("environment variable " + name + " is not set (" + because + ")",
                          "a distributed launch sets RANK, WORLD_SIZE, MASTER_ADDR and "
                          "MASTER_PORT; torchrun and srun do");
  return v;
}

// PosLab's models are tiny: a launch of more processes than this is a mistyped variable, and
// WORLD_SIZE=1000000 waited the whole timeout, then printed a 7.9 MB line of missing ranks.
constexpr long long kMaxWorld = 4096;

DistEnv fromTorchrun(const EnvLookup& env) {
  DistEnv d;
  d.launcher = "torchrun";
  const char* rank = env("RANK");
  const char* world = env("WORLD_SIZE");
  if (rank == nullptr || *rank == '\0') required(env, "RANK", "WORLD_SIZE is");
  if (world == nullptr || *world == '\0') required(env, "WORLD_SIZE", "RANK is");
  d.worldSize = static_cast<int>(parseInteger("WORLD_SIZE", world, 1, kMaxWorld));
  d.rank = static_cast<int>(parseInteger("RANK", rank, 0, kMaxWorld));
  if (d.rank >= d.worldSize)
    throw InvalidArgument("environment variable RANK=" + std::to_string(d.rank) +
                          " is not below WORLD_SIZE=" + std::to_string(d.worldSize));
  if (const char* v = env("LOCAL_RANK"); v && *v)
    d.localRank = static_cast<int>(parseInteger("LOCAL_RANK", v, 0, kMaxWorld));
  if (const char* v = env("LOCAL_WORLD_SIZE"); v && *v)
    d.localWorldSize = static_cast<int>(parseInteger("LOCAL_WORLD_SIZE", v, 1, kMaxWorld));
  if (const char* v = env("TORCHELASTIC_USE_AGENT_STORE"); v && std::string(v) == "True") {
    d.launcherHostsStore = true;
    const char* id = env("TORCHELASTIC_RUN_ID");
    const char* restart = env("TORCHELASTIC_RESTART_COUNT");
    d.storePrefix += std::string(id ? id : "none") + "/" + (restart ? restart : "0") + "/";
  }
  if (d.worldSize == 1) return d;
  d.masterAddr = required(env, "MASTER_ADDR", "WORLD_SIZE is above 1");
  d.masterPort = static_cast<uint16_t>(
      parseInteger("MASTER_PORT", required(env, "MASTER_PORT", "WORLD_SIZE is above 1"), 1, 65535));
  return d;
}

DistEnv fromSlurm(const EnvLookup& env) {
  DistEnv d;
  d.launcher = "slurm";
  d.rank = static_cast<int>(parseInteger("SLURM_PROCID", env("SLURM_PROCID"), 0, kMaxWorld));
  d.worldSize = static_cast<int>(
      parseInteger("SLURM_NTASKS", required(env, "SLURM_NTASKS", "SLURM_PROCID is"), 1, kMaxWorld));
  if (d.rank >= d.worldSize)
    throw InvalidArgument("environment variable SLURM_PROCID=" + std::to_string(d.rank) +
                          " is not below SLURM_NTASKS=" + std::to_string(d.worldSize));
  if (const char* v = env("SLURM_LOCALID"); v && *v)
    d.localRank = static_cast<int>(parseInteger("SLURM_LOCALID", v, 0, kMaxWorld));
  if (const char* v = env("SLURM_NTASKS_PER_NODE"); v && *v) {
    // "2" or "2(x3)": the count before any repetition suffix.
    const std::string s = v;
    d.localWorldSize = static_cast<int>(
        parseInteger("SLURM_NTASKS_PER_NODE", s.substr(0, s.find('(')).c_str(), 1, kMaxWorld));
  }
  if (d.worldSize == 1) return d;
  if (const char* v = env("MASTER_ADDR"); v && *v) {
    d.masterAddr = v;
  } else {
    const char* list = env("SLURM_JOB_NODELIST");
    const char* name = "SLURM_JOB_NODELIST";
    if (list == nullptr || *list == '\0') list = env("SLURM_NODELIST"), name = "SLURM_NODELIST";
    if (list == nullptr || *list == '\0')
      throw InvalidArgument(
          "environment variable SLURM_JOB_NODELIST is not set (SLURM_NTASKS is "
          "above 1 and MASTER_ADDR is not set)",
          "set MASTER_ADDR to the first node's host name");
    try {
      d.masterAddr = expandNodeList(list).front();
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(std::string("environment variable ") + name + ": " + e.what());
    }
  }
  if (const char* v = env("MASTER_PORT"); v && *v) {
    d.masterPort = static_cast<uint16_t>(parseInteger("MASTER_PORT", v, 1, 65535));
  } else {
    const long long job =
        parseInteger("SLURM_JOB_ID", required(env, "SLURM_JOB_ID", "MASTER_PORT is not set"), 0,
                     std::numeric_limits<long long>::max());
    d.masterPort = static_cast<uint16_t>(20000 + job % 20000);
  }
  return d;
}

// "01-04,7" inside a bracket -> the names prefix01 .. prefix04, prefix7 appended to out.
void expandRanges(const std::string& prefix, const std::string& ranges, const std::string& suffix,
                  std::vector<std::string>& out) {
  size_t start = 0;
  while (start <= ranges.size()) {
    const size_t comma = std::min(ranges.find(',', start), ranges.size());
    const std::string item = ranges.substr(start, comma - start);
    const size_t dash = item.find('-');
    const std::string lo = item.substr(0, dash);
    const std::string hi = dash == std::string::npos ? lo : item.substr(dash + 1);
    auto digits = [](const std::string& s) {
      return !s.empty() && s.size() <= 18 && s.find_first_not_of("0123456789") == std::string::npos;
    };
    if (!digits(lo) || !digits(hi))
      throw InvalidArgument("'[" + ranges + "]' is not a list of numbers and ranges like 01-04");
    const long long a = std::stoll(lo), b = std::stoll(hi);
    if (b < a) throw InvalidArgument("range '" + item + "' runs backwards");
    if (b - a >= static_cast<long long>(kMaxHosts) || out.size() + (b - a + 1) > kMaxHosts)
      throw InvalidArgument("more than " + std::to_string(kMaxHosts) + " hosts");
    for (long long n = a; n <= b; ++n) {
      std::string num = std::to_string(n);
      if (num.size() < lo.size()) num.insert(0, lo.size() - num.size(), '0');
      out.push_back(prefix + num + suffix);
    }
    start = comma + 1;
  }
}

}  // namespace

int localCudaDevice(int deviceCount, const EnvLookup& env) {
  if (deviceCount < 1) return 0;
  try {
    const std::optional<DistEnv> launch = readDistEnv(env);
    return launch ? launch->localRank % deviceCount : 0;
  } catch (const InvalidArgument&) {
    return 0;
  }
}

std::vector<std::string> expandNodeList(const std::string& list) {
  std::vector<std::string> hosts;
  size_t i = 0;
  while (i < list.size()) {
    // One name: up to the next comma outside a bracket.
    size_t end = i;
    int depth = 0;
    while (end < list.size() && (depth > 0 || list[end] != ',')) {
      if (list[end] == '[') ++depth;
      if (list[end] == ']') --depth;
      if (depth < 0 || depth > 1) throw InvalidArgument("unbalanced brackets in '" + list + "'");
      ++end;
    }
    if (depth != 0) throw InvalidArgument("unbalanced brackets in '" + list + "'");
    const std::string name = list.substr(i, end - i);
    if (name.empty()) throw InvalidArgument("empty host name in '" + list + "'");
    const size_t open = name.find('[');
    if (open == std::string::npos) {
      if (hosts.size() >= kMaxHosts)
        throw InvalidArgument("more than " + std::to_string(kMaxHosts) + " hosts");
      hosts.push_back(name);
    } else {
      const size_t close = name.find(']', open);
      if (name.find('[', close) != std::string::npos)
        throw InvalidArgument("'" + name + "' has more than one bracket",
                              "set MASTER_ADDR to the first node's host name");
      expandRanges(name.substr(0, open), name.substr(open + 1, close - open - 1),
                   name.substr(close + 1), hosts);
    }
    i = end + 1;
    if (end + 1 == list.size()) throw InvalidArgument("empty host name in '" + list + "'");
  }
  if (hosts.empty()) throw InvalidArgument("the host list is empty");
  return hosts;
}

std::optional<DistEnv> readDistEnv(const EnvLookup& lookup) {
  const EnvLookup env = lookup ? lookup : [](const char* name) { return std::getenv(name); };
  auto set = [&](const char* name) {
    const char* v = env(name);
    return v != nullptr && *v != '\0';
  };
  std::optional<DistEnv> d;
  if (set("RANK") || set("WORLD_SIZE"))
    d = fromTorchrun(env);
  else if (set("SLURM_PROCID"))
    d = fromSlurm(env);
  if (d && d->worldSize == 1) return std::nullopt;
  return d;
}

}  // namespace poslab::dist
