// The training tab's setup without widgets: what the setup form holds (TrainingFormSettings, plain
// values), the form's ranges (formFields in training_setup.cpp: one row per box, its range taken
// from core's key tables, core/train/train_config.cpp and core/model/model_config.cpp), the
// mapping between the form and the experiment (the form's values go into the config struct by
// member, then core's TrainConfig::checkFields applies the limits its reader applies to a file),
// and the one check of a setup the tab is given (trainingSetupProblem). Widget-free: the run
// controller and its tests use it as the form does.
#pragma once

#include <QString>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bridge/worker_adapter.h"  // TrainingRunSpec: torch-free
#include "train/experiment_spec.h"  // ExperimentSpec: plain data, no torch

namespace poslab::ui {

// 1-4 families train side by side on identical batches.
inline constexpr int kMaxTrainingFamilies = 4;
// Decimals the real-valued boxes keep (17: any double a setup names reads back exactly).
inline constexpr int kFormDecimals = 17;

// What the task options form holds (TaskOptionsForm::values).
struct TaskOptionValues {
  std::string taskId;                     // the task the options are for
  std::optional<std::string> kernel;      // kernel-lm kernel / sector-teacher teacher, if any
  std::optional<std::string> textFile;    // byte-lm's text file, if the task has one
  std::map<std::string, double> options;  // integer options that differ from their defaults and
                                          // real options typed in (empty text: the default)
  QString error;  // non-empty: an option's text is not a number (names the option)
};

// What the runs' position families start from: the setup's family_params (the values it sets;
// every other parameter starts at the family's own start, FamilyStartForm shows it) and its pins
// (config.model.pinned, one list for every family: each names a pin its families declare).
struct FamilyStart {
  std::map<std::string, std::map<std::string, double>> params;  // family -> name -> value
  std::vector<std::string> pinned;
};

// Every value the setup form shows, as plain data (TrainingSetupForm::settings / setSettings).
struct TrainingFormSettings {
  std::string task = "kernel-lm";
  std::vector<std::string> families{"jordan-stabilized", "rope"};  // checked, in the list's order
  long long steps = 200;
  double lr = 3e-3;  // peak lr
  uint64_t seed = 0;
  long long trainLength = 64;
  long long batch = 32;
  QString evalLengths = QStringLiteral("64,128,256");  // as typed: comma-separated
  long long evalEvery = 50;                            // 0: at the end
  long long evalSequences = 32;
  long long dModel = 64;
  long long heads = 4;
  long long layers = 2;
  double positionLrScale = 1;
  // The named model and optimiser bundle (train/architecture.h): choosing another one in the form
  // sets its fields over the setup's before the form's own values go in.
  std::string architecture = "poslab";
  std::string device = "auto";   // config.run.device: auto (CUDA if available), cpu, cuda
  TaskOptionValues taskOptions;  // setSettings shows them for `task`
  // The families' start; nullopt (settings made in code): the setup's stay.
  std::optional<FamilyStart> start;
};

// A value's range in the form: its spin box's minimum and maximum.
struct FormRange {
  double min = 0;
  double max = 0;
};
// A value the form shows in a box.
using FormMember = std::variant<long long TrainingFormSettings::*, double TrainingFormSettings::*,
                                uint64_t TrainingFormSettings::*>;
// The range of that box: core's limits for the value (its key table's row), narrowed where the box
// must be (at least one step; a seed an int holds). The form sets its boxes from it and
// trainingSetupProblem checks a setup against it. {0, 0} for a member the form shows in no box.
FormRange formRange(FormMember member);
// The value's key path in core's experiment JSON, as messages name it ("config.model.d_model").
std::string formPath(FormMember member);

// The settings that show `spec` (its first seed; the task options from spec.base.task).
TrainingFormSettings formFromExperiment(const poslab::ExperimentSpec& spec);
// `setup` (fields the form does not show, e.g. the model's MLP ratio) with the form's values:
// task, families, steps, lr, seed, lengths, batch, evaluation and model size, the family
// parameters and pins (when the form has them), the task options when they are the form task's
// and valid. The setup's variants are dropped when the task
// changed. Text the form holds that is not a value (eval lengths, an option) keeps the setup's;
// *problem (when given) then says why, and so does a value core's reader refuses (its message).
poslab::ExperimentSpec experimentFromForm(const poslab::ExperimentSpec& setup,
                                          const TrainingFormSettings& form,
                                          QString* problem = nullptr);
// "64, 256,1024" -> {64, 256, 1024}, "" -> {} (the train length); nullopt on anything else (a
// word, 0, a negative).
std::optional<std::vector<long long>> parseEvalLengths(const QString& text);

// The one check of a setup the training tab is given (a preset, a session, a lesson step): empty,
// or the first problem, its field named as in a preset file under `prefix` ("training." in a
// session): a task the tab lists, 1-4 known families and known families in family_params; with
// `checkRuns` everything core's checkTrainable asks of the runs (kernels, options, a text file by
// its size with nothing read, CorpusCheck::Size, parameters, pins, evaluation budgets, device: a
// session is refused at load, not at Play); and
// last every value the form's boxes hold, within their ranges (formRange) and to their precision:
// the first field they would clamp or round ("field 'config.model.d_model' = 8192 is outside the
// training panel's range [4, 4096]").
QString trainingSetupProblem(const poslab::ExperimentSpec& spec, const QString& prefix = {},
                             bool checkRuns = false);

// The runs the form describes on top of `setup`: one per checked family (in the family list's
// order), planned as the CLI plans them (planExperiment) with the form's one seed and task. Empty,
// with *error, for text that is not a value, a wrong number of families, a run over a work
// budget (bridge/training_budget.h) or a family start its learned form cannot hold (bridge
// familyStartProblem: the model would move it); core checks the rest when the runs are built.
std::vector<TrainingRunSpec> runSpecsFromForm(const poslab::ExperimentSpec& setup,
                                              const TrainingFormSettings& form, QString* error);

}  // namespace poslab::ui
