#include "train/experiment.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "train/trainer.h"
#include "util/error.h"

#ifndef POSLAB_RESOURCE_DIR
#define POSLAB_RESOURCE_DIR "resources"
#endif

namespace poslab {

std::vector<RunResult> runExperiment(const ExperimentSpec& spec, const ExperimentProgress& progress,
                                     const std::string& checkpointDir) {
  std::vector<std::map<std::string, std::string>> variants = spec.variants;
  if (variants.empty()) variants.push_back({});
  const size_t total = variants.size() * spec.families.size() * spec.seeds.size();
  std::vector<RunResult> results;
  size_t index = 0;
  for (const auto& variant : variants) {
    for (const auto& family : spec.families) {
      for (uint64_t seed : spec.seeds) {
        RunResult r;
        r.family = family;
        r.seed = seed;
        TrainConfig cfg = spec.base;
        cfg.model.family = family;
        cfg.run.seed = seed;
        auto fp = spec.familyParams.find(family);
        if (fp != spec.familyParams.end())
          for (const auto& [k, v] : fp->second) cfg.model.familyParams[k] = v;
        for (const auto& [k, v] : variant) {
          if (k == "kernel") cfg.task.kernel = v;
          r.variant += (r.variant.empty() ? "" : ",") + v;
        }
        const auto t0 = std::chrono::steady_clock::now();
        try {
          Trainer trainer(cfg);
          double tokens = 0;
          for (long long s = 0; s < cfg.run.steps; ++s) {
            Snapshot snap = trainer.step();
            tokens += snap.tokensPerSecond > 0 ? static_cast<double>(cfg.optim.batch * cfg.task.trainLength) : 0;
            if (progress) progress(index, total, r, snap);
          }
          r.eval = trainer.evaluate(trainer.config().run.evalLengths);
          r.position = trainer.positionParameters(0);
          r.pjLoo = trainer.pjOrderLoo(cfg.task.trainLength);
          r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          r.tokensPerSecond = tokens / std::max(r.seconds, 1e-9);
          if (!checkpointDir.empty()) {
            std::filesystem::create_directories(checkpointDir);
            trainer.saveCheckpoint(checkpointDir + "/" + family + (r.variant.empty() ? "" : "-" + r.variant) +
                                   "-seed" + std::to_string(seed) + ".pt");
          }
        } catch (const DivergedError& e) {
          r.error = e.what();
        }
        results.push_back(r);
        ++index;
      }
    }
  }
  return results;
}

std::string presetDirectory() {
  if (const char* env = std::getenv("POSLAB_RESOURCES")) return std::string(env) + "/presets";
  return std::string(POSLAB_RESOURCE_DIR) + "/presets";
}

std::vector<std::string> presetNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(presetDirectory(), ec))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

ExperimentSpec loadPreset(const std::string& nameOrPath) {
  std::string path = nameOrPath;
  if (!std::filesystem::exists(path)) path = presetDirectory() + "/" + nameOrPath + ".json";
  std::ifstream in(path);
  if (!in) {
    std::string known;
    for (const auto& n : presetNames()) known += (known.empty() ? "" : ", ") + n;
    throw InvalidArgument("unknown preset '" + nameOrPath + "'", "known presets: " + known);
  }
  nlohmann::json j;
  try {
    in >> j;
    ExperimentSpec s;
    s.name = j.at("name").get<std::string>();
    s.description = j.value("description", "");
    s.paperResult = j.value("paper", "");
    s.families = j.at("families").get<std::vector<std::string>>();
    s.seeds = j.value("seeds", std::vector<uint64_t>{0});
    s.base = j.at("config").get<TrainConfig>();
    s.familyParams = j.value("family_params", s.familyParams);
    s.variants = j.value("variants", s.variants);
    return s;
  } catch (const nlohmann::json::exception& e) {
    throw Error("preset file " + path + " is malformed: " + e.what());
  }
}

}  // namespace poslab
