#include "train/experiment.h"

#include <chrono>
#include <filesystem>

#include "train/trainer.h"
#include "util/error.h"

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

}  // namespace poslab
