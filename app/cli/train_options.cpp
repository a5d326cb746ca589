#include "cli/train_options.h"

#include <cerrno>
#include <fstream>
#include <sstream>

#include "encodings/params.h"
#include "tasks/task.h"
#include "tasks/task_info.h"
#include "tasks/task_options.h"
#include "train/architecture.h"
#include "train/run_limits.h"
#include "util/error.h"

namespace poslab::cli {

std::vector<long long> parseLengthList(const std::string& text, const std::string& what) {
  std::vector<long long> out;
  std::stringstream ss(text);
  std::string item;
  const auto refuse = [&] {
    throw InvalidArgument(what + " '" + text + "' is not a list of positive integers",
                          "for example 64,256,1024");
  };
  while (std::getline(ss, item, ',')) {
    if (item.empty()) refuse();  // ",," or a leading comma: a length left out
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (*end != '\0' || v <= 0 || errno == ERANGE) refuse();
    out.push_back(v);
  }
  if (out.empty()) refuse();
  return out;
}

std::vector<uint64_t> parseSeedList(const std::string& text, const std::string& what) {
  std::vector<uint64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty())  // ",," or a leading comma: a seed left out
      throw InvalidArgument(what + " '" + text + "' is not a list of seeds",
                            "seeds are integers from 0 to 2^64-1, for example 0,1,2");
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(item.c_str(), &end, 10);
    if (*end != '\0' || item[0] == '-' || errno == ERANGE)
      throw InvalidArgument(what + " '" + text + "' is not a list of seeds",
                            "seeds are integers from 0 to 2^64-1, for example 0,1,2");
    out.push_back(v);
  }
  if (out.empty()) throw InvalidArgument(what + " is empty", "for example 0,1,2");
  return out;
}

std::vector<std::string> parseNameList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

void addTrainOptions(CLI::App* cmd, TrainOptions& o) {
  cmd->add_option("--task", o.task,
                  "indirect-indexing, kernel-lm, kv-retrieval, sector-teacher, byte-lm");
  cmd->add_option("--task-set", o.taskSets,
                  "task option NAME=VALUE (repeatable), e.g. alphabet=64");
  cmd->add_option("--kernel", o.kernel,
                  "kernel-lm target kernel / sector-teacher teacher name (default: mixed_raw / "
                  "recency_weak_jet)");
  cmd->add_option("--text", o.text, "byte-lm: a UTF-8 text file (default: the fortunes corpus)");
  cmd->add_option("--train-length", o.trainLength, "training sequence length T")
      ->check(integerIn(kMinTrainLength, kMaxTrainLength));
  cmd->add_option("--min-train-length", o.minTrainLength,
                  "draw each step's length uniformly from [N, T] (0: always T)")
      ->check([](const std::string& v) {
        return !v.empty() && v[0] != '-' ? std::string()
                                         : "'" + v + "' must be 0 (off) or a length >= 2";
      });
  cmd->add_option("--steps", o.steps, "optimisation steps")
      ->capture_default_str()
      ->check(integerIn(0, kMaxTrainSteps));
  // CLI11 alone would read "-1" as 2^64-1.
  cmd->add_option("--seed", o.seed, "seed of weights and data")
      ->capture_default_str()
      ->check([](const std::string& v) {
        errno = 0;
        const bool digits = !v.empty() && v.find_first_not_of("0123456789") == std::string::npos;
        if (digits && (std::strtoull(v.c_str(), nullptr, 10), errno != ERANGE))
          return std::string();
        return "'" + v + "' must be a whole number from 0 to 18446744073709551615";
      });
  cmd->add_option("--eval-lengths", o.evalLengths, "comma-separated evaluation lengths");
  cmd->add_option("--eval-every", o.evalEvery,
                  "evaluate every N steps and after the last (0: only after the last)")
      ->capture_default_str()
      ->check(integerIn(0, kMaxTrainSteps));
  cmd->add_option("--eval-sequences", o.evalSequences, "sequences per evaluation length")
      ->capture_default_str()
      ->check(integerIn(1, 1LL << 30));
  cmd->add_option("--eval-data", o.evalData,
                  "evaluation sequence set: 0 the usual one, other values independent held-out "
                  "sets (run.eval_data)")
      ->check(integerIn(0, 1LL << 31));
  cmd->add_option("--lr", o.lr, "peak learning rate")->capture_default_str();
  cmd->add_option("--batch", o.batch, "sequences per step")->capture_default_str();
  cmd->add_option("--position-lr", o.positionLr,
                  "learning-rate multiplier of the position parameters")
      ->capture_default_str();
  cmd->add_option("--d-model", o.dModel, "residual width C")->capture_default_str();
  cmd->add_option("--heads", o.heads, "attention heads H")->capture_default_str();
  cmd->add_option("--layers", o.layers, "transformer blocks")->capture_default_str();
  cmd->add_option("--pin", o.pins,
                  "hold a position parameter fixed: gamma, eta, gates, orders, coefficients, "
                  "kappa, slope, delta (compare and run: in each family that learns it)");
  cmd->add_option("--device", o.device, "auto, cpu or cuda")->capture_default_str();
  cmd->add_flag("--recompute-activations", o.recomputeActivations,
                "recompute each block in the backward: lower peak memory, about a third more "
                "compute per step (run.recompute_activations)");
  cmd->add_option("--attention", o.attention,
                  "attention code (run.attention; default POSLAB_ATTENTION, else fused)")
      ->check(CLI::IsMember(attentionPathNames()));
  cmd->add_option("--metrics-every", o.metricsEvery,
                  "read the step metrics back every n steps and at the last (run.metrics_every)")
      ->check(integerIn(1, kMaxTrainSteps));
  cmd->add_option("--config", o.configFile,
                  "start from a TrainConfig JSON (e.g. a run's config.json)");
  cmd->add_option("--architecture", o.architecture,
                  "the model and optimiser of a reference: poslab, jordan-reference, "
                  "pj-reference (applied after --config)")
      ->check(CLI::IsMember(architectureIds()));
  addCommonOptions(cmd, o.common);
}

JsonPath trainOptionsSource(const TrainOptions& o) {
  if (o.configFile.empty()) return {};
  return {"--config '" + o.configFile + "'", ""};
}

TrainConfig buildTrainConfig(const TrainOptions& o, const std::string& family) {
  TrainConfig c;
  if (!o.configFile.empty()) c = readTrainConfigFile(o.configFile, "--config");
  if (!o.architecture.empty()) applyArchitecture(o.architecture, c);
  if (!o.task.empty()) c.task.id = o.task;
  if (o.task.empty() && o.configFile.empty()) throw InvalidArgument("--task is required");
  for (const auto& s : o.taskSets) {
    auto [name, value] = parseAssignment(s);
    c.task.options[name] = value;
  }
  if (!o.kernel.empty())
    c.task.kernel = o.kernel;
  else if (o.configFile.empty() && !taskDefaultKernel(c.task.id).empty())
    c.task.kernel = taskDefaultKernel(c.task.id);  // sector-teacher: recency_weak_jet
  if (!o.text.empty()) {
    if (!taskTakesText(c.task.id))
      throw InvalidArgument("--text is given but task " + c.task.id + " takes no text",
                            "--text is for byte-lm");
    c.task.textFile = o.text;
  }
  if (o.trainLength > 0)
    c.task.trainLength = o.trainLength;
  else if (o.configFile.empty())
    c.task.trainLength = findTaskInfo(c.task.id) ? findTaskInfo(c.task.id)->defaultTrainLength
                                                 : TaskConfig{}.trainLength;  // checked later
  if (o.minTrainLength >= 0) c.task.minTrainLength = o.minTrainLength;
  if (o.evalData >= 0) c.run.evalData = static_cast<uint64_t>(o.evalData);
  c.model.family = family;
  for (const auto& [k, v] : parseSets(o.common.sets)) c.model.familyParams[k] = v;
  if (o.configFile.empty()) {
    c.model.dModel = o.dModel;
    c.model.heads = o.heads;
    c.model.layers = o.layers;
    c.optim.lr = o.lr;
    c.optim.batch = o.batch;
    c.optim.positionLrScale = o.positionLr;
    c.run.steps = o.steps;
    c.run.seed = o.seed;
    c.run.evalEvery = o.evalEvery;
    c.run.evalSequences = o.evalSequences;
    c.run.device = o.device;
  }
  if (o.recomputeActivations) c.run.recomputeActivations = true;
  if (!o.attention.empty()) c.run.attention = o.attention;
  if (o.metricsEvery > 0) c.run.metricsEvery = o.metricsEvery;
  if (!o.pins.empty()) c.model.pinned = o.pins;
  if (!o.evalLengths.empty()) c.run.evalLengths = parseLengthList(o.evalLengths, "--eval-lengths");
  // Pins and the rest: checkTrainable (train) and compare's own check of the families.
  c.validate();
  return c;
}

}  // namespace poslab::cli
