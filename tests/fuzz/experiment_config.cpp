// Fuzzes the preset / experiment / config reader (core/train/experiment_spec.h, train_config.h,
// model/model_config.h): core's one strict JSON reader behind preset files, `train --config`, the
// "training" object of sessions and the config inside checkpoints. The first byte picks the entry:
//   0: readExperimentFile (a preset file);
//   1: readTrainConfigFile (`train --config`, a run's config.json);
//   2: nlohmann's get<TrainConfig>() (a checkpoint's config string);
//   3: get<ModelConfig>() of the text.
// Every input must be accepted or refused with poslab::InvalidArgument (which names the file and
// the field); any other exception is a finding. What is accepted must validate and read back
// unchanged from its own JSON.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "io/json_fields.h"
#include "io/json_input.h"
#include "model/model_config.h"
#include "train/experiment_spec.h"
#include "train/train_config.h"
#include "util/error.h"

namespace {

using poslab::fuzz::require;

void experimentFile(const std::string& path) {
  const poslab::ExperimentSpec spec = poslab::readExperimentFile(path, "preset file");
  const nlohmann::json j = poslab::experimentToJson(spec);
  const poslab::ExperimentSpec again = poslab::readExperiment(j, poslab::JsonPath{"again", ""});
  require(poslab::experimentToJson(again) == j, "an experiment's JSON round trip is exact",
          j.dump());
}

void trainConfigFile(const std::string& path) {
  const poslab::TrainConfig c = poslab::readTrainConfigFile(path, "--config");
  c.validate();
  const nlohmann::json j = c;
  poslab::TrainConfig again;
  poslab::readTrainConfig(j, poslab::JsonPath{"again", ""}, again);
  require(nlohmann::json(again) == j, "a config's JSON round trip is exact", j.dump());
}

void checkpointConfig(const std::string& text) {
  const nlohmann::json j = poslab::parseJsonText(text, "checkpoint config");
  const auto c = j.get<poslab::TrainConfig>();
  require(nlohmann::json(c).get<poslab::TrainConfig>().run.steps == c.run.steps,
          "a checkpoint config reads back");
}

void modelConfig(const std::string& text) {
  const nlohmann::json j = poslab::parseJsonText(text, "model config");
  const auto m = j.get<poslab::ModelConfig>();
  m.validate();
  require(nlohmann::json(nlohmann::json(m).get<poslab::ModelConfig>()) == nlohmann::json(m),
          "a model config's JSON round trip is exact");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    switch (data[0] % 4) {
      case 0:
        experimentFile(poslab::fuzz::writeScratchFile(data + 1, size - 1, "preset.json"));
        break;
      case 1:
        trainConfigFile(poslab::fuzz::writeScratchFile(data + 1, size - 1, "config.json"));
        break;
      case 2:
        checkpointConfig(text);
        break;
      default:
        modelConfig(text);
        break;
    }
  } catch (const poslab::InvalidArgument& e) {
    require(std::string(e.what()).size() > 0, "a refusal says why");
  }
  return 0;
}
