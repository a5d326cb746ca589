// The training tab's setup without widgets: what the setup form holds (TrainingFormSettings, plain
// values), the form's ranges (one table, kFormFields in training_setup.cpp, keyed by the path of
// each value in core's experiment JSON), and the mapping between the form and the experiment. The
// mapping writes the form's values into core's JSON form of the setup (experimentToJson) and reads
// the config back with core's strict reader (readTrainConfig), so that no key is typed here twice
// and every value the form gives passes core's own limits. Widget-free: the run controller and its
// tests use it as the form does.
#pragma once

#include <QString>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
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
};

// A value's range in the form: its spin box's minimum and maximum.
struct FormRange {
  double min = 0;
  double max = 0;
};
// The range of the form's value at `path` in core's experiment JSON ("config.model.d_model",
// "config.run.seed"); the form sets its boxes from it and formProblem checks a setup against it.
FormRange formRange(const std::string& path);

// The settings that show `spec` (its first seed; the task options from spec.base.task).
TrainingFormSettings formFromExperiment(const poslab::ExperimentSpec& spec);
// `setup` (fields the form does not show, e.g. pins, the model's MLP ratio) with the form's values:
// task, families, steps, lr, seed, lengths, batch, evaluation and model size, the task options
// when they are the form task's and valid. The setup's variants are dropped when the task
// changed. Text the form holds that is not a value (eval lengths, an option) keeps the setup's;
// *problem (when given) then says why, and so does a value core's reader refuses (its message).
poslab::ExperimentSpec experimentFromForm(const poslab::ExperimentSpec& setup,
                                          const TrainingFormSettings& form,
                                          QString* problem = nullptr);
// "64, 256,1024" -> {64, 256, 1024}, "" -> {} (the train length); nullopt on anything else (a
// word, 0, a negative).
std::optional<std::vector<long long>> parseEvalLengths(const QString& text);

// Empty when the form holds every value of `spec` it shows exactly; else the first field it would
// clamp or round ("field 'config.model.d_model' = 8192 is outside the training panel's range
// [4, 4096]"), named as in a preset file under `prefix` ("training." in a session).
QString formProblem(const poslab::ExperimentSpec& spec, const QString& prefix = {});
// formProblem, after the checks the form's lists make: a known task, 1-4 known families.
QString setupProblem(const poslab::ExperimentSpec& spec);

// The runs the form describes on top of `setup`: one per checked family (in the family list's
// order), planned as the CLI plans them (planExperiment) with the form's one seed and task. Empty,
// with *error, for text that is not a value or a wrong number of families; core checks the rest
// when the runs are built.
std::vector<TrainingRunSpec> runSpecsFromForm(const poslab::ExperimentSpec& setup,
                                              const TrainingFormSettings& form, QString* error);

}  // namespace poslab::ui
