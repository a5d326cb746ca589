#include "train/trainable_check.h"

#include <torch/cuda.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <memory>
#include <set>

#include "encodings/registry.h"
#include "io/input_file.h"
#include "io/json_fields.h"
#include "model/pin_check.h"
#include "model/position_module.h"
#include "tasks/task.h"
#include "tasks/task_options.h"
#include "train/experiment_plan.h"
#include "train/pj_sector_init.h"
#include "train/run_limits.h"
#include "util/error.h"

namespace poslab {

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Runs `check`; an Error it throws is raised again at `at` ("SOURCE: field 'PATH': what"), so a
// message from deep in the library (a task, a family, LibTorch) names the field it came from.
template <class F>
void atField(const JsonPath& at, F&& check) {
  try {
    check();
  } catch (const Error& e) {
    at.fail(std::string(": ") + e.what());
  } catch (const std::bad_alloc&) {
    at.fail(": out of memory while checking it");
  } catch (const std::exception& e) {  // c10::Error from LibTorch, std::filesystem errors
    at.fail(std::string(": ") + e.what());
  }
}

// Where each task field of one planned run comes from: the variant when it sets the field, else
// config.task.
struct TaskFieldPaths {
  JsonPath config;  // "config"
  const std::map<std::string, std::string>* variant = nullptr;
  JsonPath variantAt;  // "variants[i]"
  JsonPath of(const std::string& key) const {
    if (variant && variant->count(key)) return variantAt.key(key);
    return config.key("task").key(key);
  }
};

void checkLengthRange(const Task& task, long long length, const JsonPath& at,
                      const std::string& what) {
  if (length < task.minLength() || length > task.maxLength())
    at.fail("= " + std::to_string(length) + ": task " + task.id() + " cannot generate " + what +
                " of this length",
            "allowed [" + std::to_string(task.minLength()) + ", " +
                std::to_string(task.maxLength()) + "]");
}

// The task of one planned run: id, kernel, options, text, lengths and the evaluation.
void checkTask(const TrainConfig& cfg, const TaskFieldPaths& paths, CorpusCheck corpus) {
  const TaskConfig& t = cfg.task;
  const std::vector<std::string> ids = taskIds();
  if (std::find(ids.begin(), ids.end(), t.id) == ids.end())
    paths.of("id").fail(": unknown task '" + t.id + "'", "known: " + joined(ids));
  const std::vector<std::string> kernels = taskKernelChoices(t.id);
  if (!kernels.empty() && std::find(kernels.begin(), kernels.end(), t.kernel) == kernels.end())
    paths.of("kernel").fail("= \"" + t.kernel + "\" is not a kernel of task " + t.id,
                            "one of " + joined(kernels));
  const std::vector<TaskOptionSpec> specs = taskOptionSpecs(t);
  const JsonPath options = paths.config.key("task").key("options");
  for (const auto& [name, value] : t.options) {
    auto spec = std::find_if(specs.begin(), specs.end(),
                             [&](const TaskOptionSpec& s) { return s.name == name; });
    std::vector<std::string> names;
    for (const auto& s : specs) names.push_back(s.name);
    if (spec == specs.end())
      options.key(name).fail(": task " + t.id + " has no option '" + name + "'",
                             names.empty() ? "it takes none" : "its options: " + joined(names));
    // A negative value that asks for the default (TaskOptionSpec::negativeMeansDefault).
    const bool asksDefault = spec->negativeMeansDefault && value < 0;
    if (!std::isfinite(value) || (!asksDefault && (value < spec->min || value > spec->max)))
      checkJsonValue(value, options.key(name), inRange(spec->min, spec->max));
    if (spec->integer && value != std::floor(value))
      options.key(name).fail("= " + shownJson(value) + " is not an integer");
  }
  if (taskTakesText(t.id) && !t.textFile.empty())
    atField(paths.of("text_file"),
            [&] { checkInputFile(t.textFile, "text file", kMaxTextInputBytes); });

  // The task as the trainer builds it (its own checks across options and lengths), and the
  // evaluation's (TaskInfo::evaluationOptions; byte-lm: the held-out split).
  TaskConfig built = t;
  built.headDim = cfg.model.headDim();  // kernel-lm's omega follows the head size
  const JsonPath taskAt =
      taskTakesText(t.id) && !t.textFile.empty() ? paths.of("text_file") : paths.config.key("task");
  std::unique_ptr<Task> task, evalTask;
  atField(taskAt, [&] {
    const bool read = corpus == CorpusCheck::Read;
    task = read ? makeTask(built) : makeTaskOutline(built);
    evalTask = read ? makeEvaluationTask(built) : makeEvaluationTaskOutline(built);
  });
  checkLengthRange(*task, t.trainLength, paths.config.key("task").key("train_length"),
                   "training sequences");
  if (t.minTrainLength > 0)
    checkLengthRange(*task, t.minTrainLength, paths.config.key("task").key("min_train_length"),
                     "training sequences");
  for (size_t i = 0; i < t.trainLengths.size(); ++i)
    checkLengthRange(*task, t.trainLengths[i],
                     paths.config.key("task").key("train_lengths").index(i), "training sequences");

  atField(paths.config.key("task").key("train_length"),
          [&] { checkTrainingFits(cfg, task->vocabSize()); });

  const JsonPath lengthsAt = paths.config.key("run").key("eval_lengths");
  std::vector<long long> lengths = cfg.run.evalLengths;
  if (lengths.empty()) lengths = {t.trainLength};  // "[]: the train length"
  for (size_t i = 0; i < lengths.size(); ++i) {
    const JsonPath at = cfg.run.evalLengths.empty() ? lengthsAt : lengthsAt.index(i);
    checkLengthRange(*evalTask, lengths[i], at, "evaluation sequences");
    atField(at, [&] {
      checkEvaluationFits(cfg, task->vocabSize(), lengths[i],
                          evaluationPasses(*task, lengths[i]) * cfg.run.evalSequences);
    });
  }
  atField(paths.config.key("run").key("eval_sequences"),
          [&] { checkEvaluationTotalFits(cfg, *task, lengths, cfg.run.evalSequences); });
}

// One family with its parameters (spec.family_params over config.model.family_params).
void checkFamily(const TrainConfig& cfg, const std::map<std::string, double>& specParams,
                 const JsonPath& specParamsAt, const JsonPath& config) {
  const ModelConfig& m = cfg.model;
  const FamilyInfo& info = familyInfo(m.family);  // known: the reader and validate checked it
  std::vector<std::string> names;
  for (const ParamSpec& p : info.params) names.push_back(p.name);
  auto checkOne = [&](const std::string& name, double value, const JsonPath& at) {
    auto spec = std::find_if(info.params.begin(), info.params.end(),
                             [&](const ParamSpec& p) { return p.name == name; });
    if (spec == info.params.end())
      at.fail(": family " + m.family + " has no parameter '" + name + "'",
              names.empty() ? "it has none" : "its parameters: " + joined(names));
    atField(at, [&] { checkValue(*spec, value, m.family); });
  };
  for (const auto& [name, value] : m.familyParams)
    if (!specParams.count(name))
      checkOne(name, value, config.key("model").key("family_params").key(name));
  for (const auto& [name, value] : specParams) checkOne(name, value, specParamsAt.key(name));
  // The combination, with heads, head_dim and L filled in as the model fills them in.
  const JsonPath combined = specParams.empty() ? config.key("model") : specParamsAt;
  atField(combined, [&] { makeEncoding(m.family, resolvedFamilyParams(m, cfg.task.trainLength)); });
  atField(combined, [&] { checkTrainableStart(m, cfg.task.trainLength); });
}

void checkDevice(const RunConfig& run, const JsonPath& at) {
  if (run.device == "cuda" && !torch::cuda::is_available())
    at.fail("= \"cuda\": this LibTorch build or machine has no CUDA device", "use cpu or auto");
}

}  // namespace

void checkTrainable(const ExperimentSpec& spec, const JsonPath& at, CorpusCheck corpus) {
  const JsonPath config = at.key("config");
  spec.base.validate(config);
  checkDevice(spec.base.run, config.key("run").key("device"));
  // The family ids first (the PJ sector checks ask each family), then the variants (at least the
  // base task), then each family's parameters: the seeds change nothing checked here.
  if (spec.families.empty()) at.key("families").fail("is empty", "list at least one family id");
  for (size_t i = 0; i < spec.families.size(); ++i)
    atField(at.key("families").index(i), [&] { familyInfo(spec.families[i]); });
  std::vector<std::map<std::string, std::string>> variants = spec.variants;
  if (variants.empty()) variants.push_back({});
  for (size_t v = 0; v < variants.size(); ++v) {
    TaskFieldPaths paths{config, spec.variants.empty() ? nullptr : &variants[v],
                         at.key("variants").index(v)};
    TrainConfig cfg = spec.base;
    applyTaskVariant(variants[v], cfg);
    checkTask(cfg, paths, corpus);
    // The PJ sector choices of this variant, per family (the "auto" inits read its teacher).
    const JsonPath modelAt =
        variants[v].count("sectors") ? paths.variantAt.key("sectors") : config.key("model");
    const bool pjChoices = !cfg.model.pjSectors.empty() || cfg.model.pjGateInit != "uniform" ||
                           cfg.model.pjOrderInit != "uniform";
    for (const std::string& family : spec.families) {
      // Known (checked above); a family without sectorParams ignores the switches.
      if (!pjChoices || !familyInfo(family).sectorParams) continue;
      TrainConfig c = cfg;
      c.model.family = family;
      if (auto fp = spec.familyParams.find(family); fp != spec.familyParams.end())
        for (const auto& [k, val] : fp->second) c.model.familyParams[k] = val;
      atField(modelAt, [&] {
        c.model.validate();
        resolvePjSectorChoices(c);
        makeEncoding(c.model.family, resolvedFamilyParams(c.model, c.task.trainLength));
      });
    }
  }
  for (size_t i = 0; i < spec.families.size(); ++i) {
    const std::string& family = spec.families[i];
    TrainConfig cfg = spec.base;
    cfg.model.family = family;
    auto fp = spec.familyParams.find(family);
    const std::map<std::string, double> none;
    const std::map<std::string, double>& params = fp == spec.familyParams.end() ? none : fp->second;
    for (const auto& [k, v] : params) cfg.model.familyParams[k] = v;
    checkFamily(cfg, params, at.key("family_params").key(family), config);
  }
  // Pins: one family learns each; several families, at least one of them (each run pins what its
  // family learns, planExperiment).
  atField(config.key("model").key("pinned"), [&] { checkExperimentPins(spec); });
}

void checkTrainable(const TrainConfig& config, const JsonPath& at, CorpusCheck corpus) {
  config.validate(at);
  checkDevice(config.run, at.key("run").key("device"));
  checkTask(config, TaskFieldPaths{at, nullptr, {}}, corpus);
  checkFamily(config, {}, {}, at);
  atField(at.key("model").key("pinned"),
          [&] { checkPinsApply(config.model, config.task.trainLength); });
}

}  // namespace poslab
