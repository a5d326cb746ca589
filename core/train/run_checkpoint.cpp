#include "train/run_checkpoint.h"

#include <nlohmann/json.hpp>

#include <filesystem>

#include "io/atomic_file.h"
#include "io/json_input.h"
#include "train/trainer.h"
#include "util/error.h"

namespace poslab {

namespace {
std::string sidecarPath(const std::string& path) {
  return path + ".json";
}
const char* const kStartAfresh = "remove it (and its .json) to train that run from its start";
}  // namespace

ResumedRun resumeRunCheckpoint(const std::string& path, const TrainConfig& config) {
  ResumedRun resumed;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return resumed;
  const std::string sidecar = sidecarPath(path);
  if (!std::filesystem::exists(sidecar, ec))
    throw InvalidArgument("run checkpoint '" + path + "' has no " + sidecar, kStartAfresh);
  const nlohmann::json doc = readJsonFile(sidecar, "run checkpoint file");
  const std::string source = "run checkpoint file '" + sidecar + "'";
  if (!doc.is_object() || !doc.contains("threads") || !doc["threads"].is_number_integer() ||
      !doc.contains("seconds") || !doc["seconds"].is_number())
    throw InvalidArgument(source + " lacks threads (an integer) or seconds (a number)",
                          kStartAfresh);
  resumed.threads = doc["threads"].get<int>();
  resumed.seconds = doc["seconds"].get<double>();
  if (resumed.threads < 1 || resumed.threads > 4096 || !(resumed.seconds >= 0))
    throw InvalidArgument(
        source + " has threads " + std::to_string(resumed.threads) + " or seconds out of range",
        kStartAfresh);
  // The planned config as the sweep gave it (the trainer's own config holds what it filled in).
  if (!doc.contains("config") || doc["config"] != nlohmann::json(config))
    throw InvalidArgument("run checkpoint '" + path +
                              "' was written for another setup than this "
                              "sweep's run",
                          kStartAfresh);
  resumed.trainer = Trainer::fromCheckpoint(path);
  return resumed;
}

void saveRunCheckpoint(const std::string& path, const Trainer& trainer, const TrainConfig& planned,
                       int threads, double seconds) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  trainer.saveCheckpoint(path);
  const nlohmann::json doc{{"step", trainer.stepCount()},
                           {"threads", threads},
                           {"seconds", seconds},
                           {"config", planned}};
  writeFileAtomically(sidecarPath(path), [&](std::ostream& os) { os << doc.dump(2) << "\n"; });
}

void removeRunCheckpoint(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
  std::filesystem::remove(sidecarPath(path), ec);
}

}  // namespace poslab
