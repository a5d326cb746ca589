#include "training/training_setup.h"

#include <QLocale>
#include <QObject>
#include <QStringList>

#include <algorithm>
#include <climits>
#include <cmath>
#include <exception>
#include <functional>
#include <type_traits>

#include "bridge/catalog.h"
#include "bridge/training_budget.h"
#include "io/json_fields.h"
#include "tasks/task_options.h"
#include "train/architecture.h"
#include "train/experiment_plan.h"
#include "train/trainable_check.h"

namespace poslab::ui {

namespace {

using Settings = TrainingFormSettings;

QString outside(const QString& field, const QString& value, double lo, double hi) {
  return QObject::tr("field '%1' = %2 is outside the training panel's range [%3, %4]")
      .arg(field, value)
      .arg(lo)
      .arg(hi);
}

QString shortest(double v) {
  return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

// One row per value the form shows in a box: where it lives in the form's settings and in the
// config (member pointers: the form builds its config as a struct), core's key path (how messages
// name it, from core's key table) and the box's range: the row's limits in that table
// (core/train/train_config.cpp, core/model/model_config.cpp), narrowed where a box must be
// (formFields). The rows are in the order the form checks a setup (formProblem).
struct FormField {
  FormMember shown;
  std::string path;  // "config.model.d_model"
  FormRange range;
  std::function<void(const poslab::TrainConfig&, Settings&)> take;  // config -> form
  std::function<void(const Settings&, poslab::TrainConfig&)> put;   // form -> config
  // Empty when the box holds the config's value exactly; else why not, naming `field`.
  std::function<QString(const poslab::TrainConfig&, const QString& field)> problem;
};

template <class S, class M>
FormField formField(M Settings::*shown, S poslab::TrainConfig::*part, const char* section,
                    M S::*member, const std::vector<JsonField<S>>& table,
                    FormRange narrowed = {-HUGE_VAL, HUGE_VAL}) {
  const JsonField<S>& row = jsonFieldOf(table, member);
  const FormRange r{std::max(row.limits.min, narrowed.min), std::min(row.limits.max, narrowed.max)};
  FormField f;
  f.shown = shown;
  f.path = std::string("config.") + section + "." + row.key;
  f.range = r;
  f.take = [=](const poslab::TrainConfig& c, Settings& s) { s.*shown = (c.*part).*member; };
  f.put = [=](const Settings& s, poslab::TrainConfig& c) { (c.*part).*member = s.*shown; };
  f.problem = [=](const poslab::TrainConfig& c, const QString& field) -> QString {
    const M v = (c.*part).*member;
    if constexpr (std::is_floating_point_v<M>) {
      if (!(v >= r.min && v <= r.max)) return outside(field, shortest(v), r.min, r.max);
      if (QString::number(v, 'f', kFormDecimals).toDouble() != v)  // what the box keeps
        return QObject::tr(
                   "field '%1' = %2 has more digits than the training panel keeps (%3 decimals)")
            .arg(field, shortest(v))
            .arg(kFormDecimals);
    } else if (static_cast<double>(v) < r.min || static_cast<double>(v) > r.max) {
      return outside(field, QString::number(v), r.min, r.max);
    }
    return QString();
  };
  return f;
}

const std::vector<FormField>& formFields() {
  using poslab::ModelConfig;
  using poslab::OptimConfig;
  using poslab::RunConfig;
  using poslab::TaskConfig;
  using poslab::TrainConfig;
  // The form trains at least one step (core also takes 0: evaluate the initial model).
  constexpr FormRange kAtLeastOneStep{1, HUGE_VAL};
  // The seed's box holds an int; core takes any 64-bit seed (a preset may name one).
  constexpr FormRange kSeedBox{0, 1000000};
  static const std::vector<FormField> t = {
      formField(&Settings::steps, &TrainConfig::run, "run", &RunConfig::steps, runConfigFields(),
                kAtLeastOneStep),
      formField(&Settings::seed, &TrainConfig::run, "run", &RunConfig::seed, runConfigFields(),
                kSeedBox),
      formField(&Settings::trainLength, &TrainConfig::task, "task", &TaskConfig::trainLength,
                taskConfigFields()),
      formField(&Settings::batch, &TrainConfig::optim, "optim", &OptimConfig::batch,
                optimConfigFields()),
      formField(&Settings::lr, &TrainConfig::optim, "optim", &OptimConfig::lr, optimConfigFields()),
      formField(&Settings::dModel, &TrainConfig::model, "model", &ModelConfig::dModel,
                modelConfigFields()),
      formField(&Settings::heads, &TrainConfig::model, "model", &ModelConfig::heads,
                modelConfigFields()),
      formField(&Settings::layers, &TrainConfig::model, "model", &ModelConfig::layers,
                modelConfigFields()),
      formField(&Settings::positionLrScale, &TrainConfig::optim, "optim",
                &OptimConfig::positionLrScale, optimConfigFields()),
      formField(&Settings::evalEvery, &TrainConfig::run, "run", &RunConfig::evalEvery,
                runConfigFields()),
      formField(&Settings::evalSequences, &TrainConfig::run, "run", &RunConfig::evalSequences,
                runConfigFields()),
  };
  return t;
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

FormRange formRange(FormMember member) {
  for (const FormField& f : formFields())
    if (f.shown == member) return f.range;
  return {};  // not a box of the form: callers name only the rows above
}

std::string formPath(FormMember member) {
  for (const FormField& f : formFields())
    if (f.shown == member) return f.path;
  return {};
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
  Settings s;
  for (const FormField& f : formFields()) f.take(spec.base, s);
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
  s.start = FamilyStart{spec.familyParams, spec.base.model.pinned};
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
  // The form's values go into the config struct; core's key tables (TrainConfig::checkFields, the
  // limits its reader checks in a file) then refuse what they would refuse in a file.
  poslab::ExperimentSpec e = arranged;
  poslab::TrainConfig& c = e.base;
  for (const FormField& f : formFields()) f.put(form, c);
  if (auto lengths = parseEvalLengths(form.evalLengths))
    c.run.evalLengths = *lengths;
  else
    why = QObject::tr("eval lengths '%1' is not a list of positive integers (e.g. 64,256,1024)")
              .arg(form.evalLengths);
  c.run.device = form.device;
  c.task.id = form.task;
  const TaskOptionValues& options = form.taskOptions;
  if (!options.error.isEmpty()) {
    if (why.isEmpty()) why = options.error;
  } else if (options.taskId == form.task) {
    if (options.kernel) c.task.kernel = *options.kernel;
    if (options.textFile) c.task.textFile = *options.textFile;
    c.task.options = options.options;
  }
  // The form's ranges lie within core's limits; only typed eval lengths can fall outside
  // ([2, 2^20]): they keep the setup's then.
  const JsonPath at{"", "config"};
  try {
    c.checkFields(at);
  } catch (const std::exception& refused) {
    if (why.isEmpty()) why = QString::fromUtf8(refused.what());
    c.run.evalLengths = arranged.base.run.evalLengths;
    try {
      c.checkFields(at);
    } catch (const std::exception&) {
      c = arranged.base;  // a value of the setup's own that core refuses (a setup made in code):
                          // nothing of the form can run with it; `why` says why
    }
  }
  if (form.task != setup.base.task.id) e.variants.clear();  // the setup's variants are its task's
  e.seeds = {e.base.run.seed};
  e.families = form.families;
  if (form.start) {
    e.familyParams = form.start->params;
    e.base.model.pinned = form.start->pinned;
  }
  if (problem) *problem = why;
  return e;
}

namespace {
// Empty when the form holds every value of `spec` it shows exactly; else the first field it would
// clamp or round ("field 'config.model.d_model' = 8192 is outside the training panel's range
// [4, 4096]"), named as in a preset file under `prefix` ("training." in a session). The last part
// of trainingSetupProblem.
QString formProblem(const poslab::ExperimentSpec& spec, const QString& prefix) {
  for (const FormField& f : formFields()) {
    QString problem;
    if (f.shown == FormMember(&Settings::seed)) {  // the form shows the experiment's first seed
      const bool listed = !spec.seeds.empty();
      const uint64_t seed = listed ? spec.seeds.front() : spec.base.run.seed;
      if (seed > static_cast<uint64_t>(f.range.max))
        problem = outside(prefix + (listed ? "seeds" : "config.run.seed"), QString::number(seed),
                          f.range.min, f.range.max);
    } else {
      problem = f.problem(spec.base, prefix + QString::fromStdString(f.path));
    }
    if (!problem.isEmpty()) return problem;
  }
  return taskOptionsProblem(spec.base.task, prefix + QStringLiteral("config."));
}

// The runs the form trains from `e` (experimentFromForm's result): one per family, planned as the
// CLI plans them with the form's one seed and the task its controls show (a setup's first variant
// is already applied to it).
std::vector<poslab::PlannedRun> formRuns(const poslab::ExperimentSpec& e) {
  poslab::ExperimentSpec shown = e;
  shown.seeds = {e.base.run.seed};
  shown.variants.clear();
  return poslab::planExperiment(shown);
}

// The first of those runs over a work budget: core's one check (bridge/training_budget.h), the
// line naming the form's controls; empty when every run fits.
QString formRunsBudgetProblem(const poslab::ExperimentSpec& e) {
  for (const poslab::PlannedRun& p : formRuns(e))
    if (const std::string problem = trainingBudgetProblem(p.config); !problem.empty())
      return QString::fromStdString(problem);
  return {};
}
}  // namespace

QString trainingSetupProblem(const poslab::ExperimentSpec& spec, const QString& prefix,
                             bool checkRuns) {
  auto q = [](const std::string& s) { return QString::fromStdString(s); };
  const auto tasks = trainingTaskIds();
  if (std::find(tasks.begin(), tasks.end(), spec.base.task.id) == tasks.end()) {
    QStringList known;
    for (const auto& t : tasks) known << q(t);
    return QObject::tr("field '%1config.task.id': unknown task '%2' (known: %3)")
        .arg(prefix, q(spec.base.task.id), known.join(", "));
  }
  if (spec.families.empty() || spec.families.size() > static_cast<size_t>(kMaxTrainingFamilies))
    return QObject::tr("field '%1families' has %2 families; the training tab trains 1 to %3")
        .arg(prefix)
        .arg(spec.families.size())
        .arg(kMaxTrainingFamilies);
  for (const auto& f : spec.families)
    if (!findFamily(f))
      return QObject::tr("field '%1families': unknown family '%2'").arg(prefix, q(f));
  for (const auto& [f, params] : spec.familyParams)
    if (!findFamily(f))
      return QObject::tr("field '%1family_params': unknown family '%2'").arg(prefix, q(f));
  // Everything the runs need (task kernels, options and text file, family parameters, pins,
  // evaluation lengths against the budget, the device), named by field.
  if (checkRuns) {
    try {
      std::string at = prefix.toStdString();
      if (!at.empty() && at.back() == '.') at.pop_back();
      // A corpus by its size only: this runs on the UI thread; the run reads it on its own.
      checkTrainable(spec, JsonPath{"", at}, CorpusCheck::Size);
    } catch (const std::exception& ex) {
      return QString::fromUtf8(ex.what());
    }
  }
  // Every value the form's controls hold, within their ranges and to their precision: a value
  // they would clamp or round is refused rather than silently changed.
  if (const QString problem = formProblem(spec, prefix); !problem.isEmpty()) return problem;
  // The runs the form would start at Play, against the work budgets, as Play checks them: a setup
  // over a budget is refused when it is loaded, not when it is played.
  const QString budget = formRunsBudgetProblem(experimentFromForm(spec, formFromExperiment(spec)));
  if (!budget.isEmpty()) return QObject::tr("field '%1config': %2").arg(prefix, budget);
  return {};
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
  // Over a work budget nothing is built: the status names the control to change.
  if (const QString problem = formRunsBudgetProblem(e); !problem.isEmpty()) {
    *error = problem;
    return {};
  }
  std::vector<TrainingRunSpec> specs;
  for (const poslab::PlannedRun& p : formRuns(e)) {
    // A start the family's learned form cannot hold would be moved when the model is built (an
    // eta past its cap starts at 0.99 of it): refused, as checkTrainable refuses it in a file.
    const poslab::ModelConfig& m = p.config.model;
    if (const std::string problem = familyStartProblem(m.family, m.familyParams, m.dModel, m.heads,
                                                       p.config.task.trainLength, m.pinned);
        !problem.empty()) {
      *error = QObject::tr("%1's start: %2")
                   .arg(QString::fromStdString(m.family), QString::fromStdString(problem));
      return {};
    }
    TrainingRunSpec s;
    s.config = p.config;
    specs.push_back(s);
  }
  return specs;
}

}  // namespace poslab::ui
