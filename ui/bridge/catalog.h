// Torch-free copies of what the UI needs to know about core's registries: families with their
// parameter specs, task ids, probe targets. Computed once (the registries are static).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "encodings/params.h"   // ParamSpec: plain data, no torch
#include "tasks/task_config.h"  // TaskConfig: plain data, no torch

namespace poslab::ui {

struct FamilyDescription {
  std::string id;       // "jordan-exact"
  std::string title;    // "Jordan-RoPE (exact)"
  std::string formula;  // Unicode formula from FamilyInfo
  std::string summary;
  std::vector<ParamSpec> params;
  // A family loaded from a TorchScript file (loaded_families.h): its file, the content hash of
  // what was loaded (core's contentHash) and the symbols its metadata gives its parameters.
  // Empty for a built-in family.
  std::string path;
  std::string hash;
  std::map<std::string, std::string> symbols;

  bool isLoaded() const { return !path.empty(); }
};

// Every built-in family, in the order of docs/MATH.md section 1 (loaded ones: loaded_families.h).
const std::vector<FamilyDescription>& familyCatalog();
// A built-in or loaded family; nullptr for an unknown id (a file family not loaded this session).
const FamilyDescription* findFamily(const std::string& id);
// The symbol of `family`'s parameter `name` in the formula markup: its metadata's for a loaded
// family, else core's paramSymbol ("gamma" -> "γ"; the name itself where there is none).
std::string familyParamSymbol(const FamilyDescription& family, const std::string& name);
// Empty when makeEncoding(id, params) succeeds, else core's message (unknown id, a value out of
// range, head_dim not divisible, ...).
std::string checkEncoding(const std::string& id, const std::map<std::string, double>& params);

// The values a run of `family` starts from with the setup's `params` (its family_params), the
// model's size and the training length: core's resolvedFamilyParams (the setup's values, the
// model's head_dim and heads, L = the training length, each parameter's trained start, MATH 2.3).
std::map<std::string, double> familyStartValues(const std::string& family,
                                                const std::map<std::string, double>& params,
                                                long long dModel, long long heads,
                                                long long trainLength);
// Empty when a run of `family` can start from the setup's `params` with the pins `pinned` (the
// model's size and the training length as for familyStartValues), else core's message
// (checkTrainableStart, model/pin_check.h: a start the learned form cannot hold, e.g. an eta past
// eta_max tanh's cap). The start box and Play ask this; checkTrainable asks it of a setup loaded.
std::string familyStartProblem(const std::string& family,
                               const std::map<std::string, double>& params, long long dModel,
                               long long heads, long long trainLength,
                               const std::vector<std::string>& pinned);
// The pins `family` declares on what it learns (core's learnedPinnables, model/pin_check.h), at
// the default model size; empty for a family that learns nothing or cannot be built here.
const std::vector<std::string>& familyPins(const std::string& family);

std::vector<std::string> trainingTaskIds();
// The key distances at which an evaluation of `length` tokens measures accuracy for the task that
// `config` describes (core's Task::accuracyDistances: kv-retrieval's reference points 64, 128, ...
// below T - 2), smallest first; empty for a task without distances and for a config that makes no
// task (the trainer names its problem when a run is built).
std::vector<long long> taskAccuracyDistances(const poslab::TaskConfig& config, long long length);
// The lengths a task built from `config` generates (core's Task::minLength, maxLength), for a
// view that offers lengths to measure at (a text task's from its file's size: nothing is read on
// the UI thread, core's makeTaskOutline); {0, -1} (none) for a config that makes no task.
std::pair<long long, long long> taskLengthRange(const poslab::TaskConfig& config);
std::vector<std::string> probeTargetNames();  // core probeTargetNames(): toy, then lag kernels
std::vector<std::string> defaultProbeFamilyIds();
// The diagnostics tab's targets: the kernel-LM targets (least-squares PJ-bias fit), then the
// sector targets (the PJ adaptive recovery).
std::vector<std::string> diagnosticsTargetNames();

}  // namespace poslab::ui
