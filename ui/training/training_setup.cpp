#include "training/training_setup.h"

#include <QLocale>
#include <QObject>
#include <QStringList>

#include <algorithm>
#include <climits>
#include <cmath>
#include <exception>
#include <variant>

#include "bridge/catalog.h"
#include "io/json_fields.h"
#include "tasks/task_options.h"
#include "train/architecture.h"
#include "train/experiment_plan.h"
#include "train/run_limits.h"

namespace poslab::ui {

namespace {

using nlohmann::json;
using Settings = TrainingFormSettings;

// One row per value the form shows in a box: where it lives in core's experiment JSON (the key
// path, as messages name it), where it lives in the form's settings, and the box's range. The
// rows are in the order the form checks a setup (formProblem). The seed is special: the form
// shows the experiment's first seed ("seeds"), which the run's config.run.seed follows.
struct FormField {
  const char* path;
  std::variant<long long Settings::*, double Settings::*, uint64_t Settings::*> member;
  FormRange range;
};

const std::vector<FormField>& formFields() {
  static const std::vector<FormField> t = {
      {"config.run.steps", &Settings::steps, {1, kMaxTrainSteps}},
      {"config.run.seed", &Settings::seed, {0, 1000000}},
      {"config.task.train_length", &Settings::trainLength, {kMinTrainLength, kMaxTrainLength}},
      {"config.optim.batch", &Settings::batch, {1, 4096}},
      {"config.optim.lr", &Settings::lr, {1e-5, 1}},
      {"config.model.d_model", &Settings::dModel, {4, 4096}},
      {"config.model.heads", &Settings::heads, {1, 64}},
      {"config.model.layers", &Settings::layers, {1, 48}},
      {"config.optim.position_lr_scale", &Settings::positionLrScale, {0.001, 100000}},
      {"config.run.eval_every", &Settings::evalEvery, {0, 1000000}},
      {"config.run.eval_sequences", &Settings::evalSequences, {1, 1000000}},
  };
  return t;
}

// "config.model.d_model" -> "/config/model/d_model"
json::json_pointer pointer(const std::string& path) {
  std::string p = "/" + path;
  std::replace(p.begin(), p.end(), '.', '/');
  return json::json_pointer(p);
}

QString outside(const QString& field, const QString& value, double lo, double hi) {
  return QObject::tr("field '%1' = %2 is outside the training panel's range [%3, %4]")
      .arg(field, value)
      .arg(lo)
      .arg(hi);
}

QString shortest(double v) {
  return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

// The task's options as its form shows them: integers in spin boxes, switches as check boxes
// (real options are text fields and keep any number).
QString taskOptionsProblem(const TaskConfig& task, const QString& config) {
  const auto specs = taskOptionSpecs(task);
  for (const auto& [name, value] : task.options) {
    const QString field = config + "task.options." + QString::fromStdString(name);
    auto it = std::find_if(specs.begin(), specs.end(),
                           [&](const TaskOptionSpec& o) { return o.name == name; });
    if (it == specs.end())
      return QObject::tr("field '%1': task %2 has no option '%3' the training panel can show")
          .arg(field, QString::fromStdString(task.id), QString::fromStdString(name));
    if (!it->integer) continue;
    const QString text = shortest(value);
    if (it->min == 0 && it->max == 1 && value != 0 && value != 1)
      return QObject::tr("field '%1' = %2 is a switch: 0 or 1").arg(field, text);
    const double lo = std::max<double>(it->min, INT_MIN), hi = std::min<double>(it->max, INT_MAX);
    if (!(value >= lo && value <= hi)) return outside(field, text, lo, hi);
    if (value != std::floor(value))
      return QObject::tr("field '%1' = %2 is not an integer").arg(field, text);
  }
  return {};
}

}  // namespace

FormRange formRange(const std::string& path) {
  for (const FormField& f : formFields())
    if (path == f.path) return f.range;
  return {};  // not a box of the form: callers name only the rows above
}

std::optional<std::vector<long long>> parseEvalLengths(const QString& text) {
  std::vector<long long> out;
  for (const QString& part : text.split(',', Qt::SkipEmptyParts)) {
    bool ok = false;
    const long long v = part.trimmed().toLongLong(&ok);
    if (!ok || v <= 0) return std::nullopt;
    out.push_back(v);
  }
  return out;  // empty: the train length (docs/SESSIONS.md, run.eval_lengths)
}

TrainingFormSettings formFromExperiment(const poslab::ExperimentSpec& spec) {
  const json j = experimentToJson(spec);  // core's writer: the values by their key paths
  Settings s;
  for (const FormField& f : formFields())
    std::visit([&](auto member) { j.at(pointer(f.path)).get_to(s.*member); }, f.member);
  s.seed = spec.seeds.empty() ? spec.base.run.seed : spec.seeds.front();
  s.task = spec.base.task.id;
  s.families = spec.families;
  s.device = spec.base.run.device;
  s.architecture = spec.architecture;
  QStringList lengths;
  for (long long l : spec.base.run.evalLengths) lengths << QString::number(l);
  s.evalLengths = lengths.join(',');
  s.taskOptions.taskId = spec.base.task.id;
  s.taskOptions.kernel = spec.base.task.kernel;
  s.taskOptions.textFile = spec.base.task.textFile;
  s.taskOptions.options = spec.base.task.options;
  return s;
}

poslab::ExperimentSpec experimentFromForm(const poslab::ExperimentSpec& setup,
                                          const TrainingFormSettings& form, QString* problem) {
  QString why;
  poslab::ExperimentSpec arranged = setup;  // the setup under the form's architecture
  if (form.architecture != setup.architecture) {
    try {
      poslab::applyArchitecture(form.architecture, arranged.base);
      arranged.architecture = form.architecture;
    } catch (const std::exception& unknown) {
      why = QString::fromUtf8(unknown.what());  // keeps the setup's
    }
  }
  json j = experimentToJson(arranged);  // core's writer; the form's values go in by key path
  for (const FormField& f : formFields())
    std::visit([&](auto member) { j[pointer(f.path)] = form.*member; }, f.member);
  const json setupLengths = j["config"]["run"]["eval_lengths"];
  if (auto lengths = parseEvalLengths(form.evalLengths))
    j["config"]["run"]["eval_lengths"] = *lengths;
  else
    why = QObject::tr("eval lengths '%1' is not a list of positive integers (e.g. 64,256,1024)")
              .arg(form.evalLengths);
  j["config"]["run"]["device"] = form.device;
  json& task = j["config"]["task"];
  task["id"] = form.task;
  const TaskOptionValues& options = form.taskOptions;
  if (!options.error.isEmpty()) {
    if (why.isEmpty()) why = options.error;
  } else if (options.taskId == form.task) {
    if (options.kernel) task["kernel"] = *options.kernel;
    if (options.textFile) task["text_file"] = *options.textFile;
    task["options"] = options.options;
  }

  // Core's strict reader: every value of its type and within core's limits. The form's ranges lie
  // within them; only typed eval lengths can fall outside ([2, 2^20]): they keep the setup's then.
  poslab::ExperimentSpec e = arranged;
  try {
    readTrainConfig(j.at("config"), JsonPath{"", "config"}, e.base);
  } catch (const std::exception& refused) {
    if (why.isEmpty()) why = QString::fromUtf8(refused.what());
    j["config"]["run"]["eval_lengths"] = setupLengths;
    try {
      readTrainConfig(j.at("config"), JsonPath{"", "config"}, e.base);
    } catch (const std::exception&) {
      e.base = arranged.base;  // a value of the setup's own that core refuses (a setup made in
                               // code): nothing of the form can run with it; `why` says why
    }
  }
  if (form.task != setup.base.task.id) e.variants.clear();  // the setup's variants are its task's
  e.seeds = {e.base.run.seed};
  e.families = form.families;
  if (problem) *problem = why;
  return e;
}

QString formProblem(const poslab::ExperimentSpec& spec, const QString& prefix) {
  const QString config = prefix + QStringLiteral("config.");
  const json j = experimentToJson(spec);
  for (const FormField& f : formFields()) {
    const double lo = f.range.min, hi = f.range.max;
    const QString field = prefix + f.path;
    QString problem;
    if (std::holds_alternative<uint64_t Settings::*>(f.member)) {  // the seed
      const bool listed = !spec.seeds.empty();
      const uint64_t seed = listed ? spec.seeds.front() : spec.base.run.seed;
      if (seed > static_cast<uint64_t>(hi))
        problem =
            outside(prefix + (listed ? "seeds" : "config.run.seed"), QString::number(seed), lo, hi);
    } else if (std::holds_alternative<long long Settings::*>(f.member)) {
      const long long v = j.at(pointer(f.path)).get<long long>();
      if (v < lo || v > hi) problem = outside(field, QString::number(v), lo, hi);
    } else {
      const double v = j.at(pointer(f.path)).get<double>();
      if (!(v >= lo && v <= hi))
        problem = outside(field, shortest(v), lo, hi);
      else if (QString::number(v, 'f', kFormDecimals).toDouble() != v)  // what the box keeps
        problem = QObject::tr(
                      "field '%1' = %2 has more digits than the training panel keeps (%3 "
                      "decimals)")
                      .arg(field, shortest(v))
                      .arg(kFormDecimals);
    }
    if (!problem.isEmpty()) return problem;
  }
  return taskOptionsProblem(spec.base.task, config);
}

QString setupProblem(const poslab::ExperimentSpec& spec) {
  const auto tasks = trainingTaskIds();
  if (std::find(tasks.begin(), tasks.end(), spec.base.task.id) == tasks.end())
    return QObject::tr("unknown task '%1'").arg(QString::fromStdString(spec.base.task.id));
  if (spec.families.empty() || spec.families.size() > kMaxTrainingFamilies)
    return QObject::tr("a training setup needs 1 to %1 families (it has %2)")
        .arg(kMaxTrainingFamilies)
        .arg(spec.families.size());
  for (const auto& f : spec.families)
    if (!findFamily(f)) return QObject::tr("unknown family '%1'").arg(QString::fromStdString(f));
  return formProblem(spec);
}

std::vector<TrainingRunSpec> runSpecsFromForm(const poslab::ExperimentSpec& setup,
                                              const TrainingFormSettings& form, QString* error) {
  QString problem;
  const poslab::ExperimentSpec e = experimentFromForm(setup, form, &problem);
  if (!problem.isEmpty()) {
    *error = problem;
    return {};
  }
  if (e.families.empty() || e.families.size() > kMaxTrainingFamilies) {
    *error = QObject::tr("check 1 to %1 families (%2 checked)")
                 .arg(kMaxTrainingFamilies)
                 .arg(e.families.size());
    return {};
  }
  // One run per family, planned as the CLI plans them: this tab trains one seed (its control) and
  // the task its controls show (a preset's first variant is already applied to it).
  poslab::ExperimentSpec shown = e;
  shown.seeds = {e.base.run.seed};
  shown.variants.clear();
  std::vector<TrainingRunSpec> specs;
  for (const poslab::PlannedRun& p : poslab::planExperiment(shown)) {
    TrainingRunSpec s;
    s.config = p.config;
    specs.push_back(s);
  }
  return specs;
}

}  // namespace poslab::ui
