#include "session/session_state.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QStringList>
#include <QUndoStack>

#include <algorithm>
#include <cmath>
#include <exception>

#include "bridge/catalog.h"
#include "explorer/attention_view.h"
#include "explorer/diagnostics_view.h"
#include "explorer/kernel_view.h"
#include "explorer/norms_view.h"
#include "explorer/parameter_panel.h"
#include "explorer/probe_view.h"
#include "io/json_fields.h"
#include "main_window.h"
#include "train/trainable_check.h"
#include "training/training_panel.h"
#include "undo/parameter_undo.h"

namespace poslab::ui {

using nlohmann::json;

namespace {

constexpr long long kMaxHead = 4096;  // the compute clamps the shown head to the family's heads

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

// Reads one JSON object field by field, naming the field in every error and rejecting fields it
// does not know (a typo in a hand-edited session must not be ignored silently).
class ObjectReader {
 public:
  ObjectReader(const json& j, std::string path, QString* error)
      : j_(j), path_(std::move(path)), error_(error) {
    if (!j_.is_object()) fail(path_, "must be a JSON object, not " + shownJson(j_));
  }
  bool ok() const { return ok_; }

  const json* field(const char* key, bool required) {
    if (!ok_) return nullptr;
    seen_.push_back(key);
    auto it = j_.find(key);
    if (it == j_.end()) {
      if (required) fail(name(key), "is missing");
      return nullptr;
    }
    return &*it;
  }
  void string(const char* key, std::string& out, bool required = false) {
    if (const json* v = field(key, required)) {
      if (v->is_string())
        out = v->get<std::string>();
      else
        fail(name(key), "must be a string, not " + shownJson(*v));
    }
  }
  void number(const char* key, double& out) {
    if (const json* v = field(key, false)) {
      if (v->is_number())
        out = v->get<double>();
      else
        fail(name(key), "must be a number, not " + shownJson(*v));
    }
  }
  void integer(const char* key, long long& out) {
    if (const json* v = field(key, false)) {
      if (v->is_number_integer())
        out = v->get<long long>();
      else
        fail(name(key), "must be a whole number, not " + shownJson(*v));
    }
  }
  void strings(const char* key, std::vector<std::string>& out) {
    if (const json* v = field(key, false)) {
      if (!v->is_array())
        return fail(name(key), "must be an array of strings, not " + shownJson(*v));
      std::vector<std::string> items;
      for (size_t i = 0; i < v->size(); ++i) {
        if (!(*v)[i].is_string())
          return fail(name(key) + "[" + std::to_string(i) + "]",
                      "must be a string, not " + shownJson((*v)[i]));
        items.push_back((*v)[i].get<std::string>());
      }
      out = items;
    }
  }
  void boolean(const char* key, bool& out) {
    if (const json* v = field(key, false)) {
      if (v->is_boolean())
        out = v->get<bool>();
      else
        fail(name(key), "must be true or false, not " + shownJson(*v));
    }
  }
  // Call last: fails on a field no getter asked for.
  bool finish() {
    if (!ok_) return false;
    for (const auto& [k, v] : j_.items())
      if (std::find(seen_.begin(), seen_.end(), k) == seen_.end()) {
        std::string known;
        for (const auto& s : seen_) known += (known.empty() ? "" : ", ") + s;
        fail(name(k.c_str()), "is not a known field (known here: " + known + ")");
        break;
      }
    return ok_;
  }
  std::string name(const char* key) const { return path_.empty() ? key : path_ + "." + key; }
  void fail(const std::string& field, const std::string& what) {
    if (!ok_) return;
    ok_ = false;
    // The top level has no field name: "the document must be a JSON object, not an array".
    *error_ = field.empty() ? QObject::tr("the document %1").arg(q(what))
                            : QObject::tr("field '%1' %2").arg(q(field), q(what));
  }

 private:
  const json& j_;
  std::string path_;
  QString* error_;
  bool ok_ = true;
  std::vector<std::string> seen_;
};

QString viewName(WindowView v) {
  return windowViewNames().split('|').value(static_cast<int>(v));
}

}  // namespace

json sessionToJson(const SessionState& s) {
  const ViewSettings& v = s.views;
  json j = {
      {"format", kSessionFormat},
      {"tab", s.tab},
      {"explorer", {{"family", s.family}, {"values", s.values}}},
      {"views",
       {{"kernel", {{"lags", v.kernel.lagCount}, {"log_lag", v.kernel.logLag}}},
        {"attention",
         {{"T", v.attention.T}, {"head", v.attention.head}, {"log_color", v.attentionLogColor}}},
        {"norms", {{"max_position", v.norms.maxPos}}},
        {"probe", {{"target", v.probe.target}, {"family_only", v.probe.familyOnly}}},
        {"diagnostics", {{"target", v.diagnostics.target}}}}},
      {"training", experimentToJson(s.training)}};
  if (!v.kernel.overlay.empty()) j["views"]["kernel"]["overlay"] = v.kernel.overlay;
  if (!s.checkpoints.empty()) {
    json list = json::array();
    for (const SessionCheckpoint& c : s.checkpoints)
      list.push_back({{"family", c.family}, {"file", c.file}, {"step", c.step}});
    j["trained_models"] = list;
  }
  return j;
}

bool sessionFromJson(const json& j, SessionState& out, QString* error) {
  SessionState s;
  ObjectReader top(j, "", error);
  if (const json* f = top.field("format", true)) {
    if (!f->is_string() || f->get<std::string>() != kSessionFormat) {
      *error = QObject::tr(
                   "field 'format' is %1, not \"%2\" (not a PosLab session, or one from "
                   "another version)")
                   .arg(q(shownJson(*f)), kSessionFormat);
      return false;
    }
  }
  top.string("tab", s.tab);
  if (const json* e = top.field("explorer", true)) {
    ObjectReader r(*e, "explorer", error);
    r.string("family", s.family, true);
    if (const json* values = r.field("values", false)) {
      ObjectReader vr(*values, "explorer.values", error);
      if (vr.ok())
        for (const auto& [name, v] : values->items()) {
          double x = 0;
          vr.number(name.c_str(), x);
          s.values[name] = x;
        }
      if (!vr.finish()) return false;
    }
    if (!r.finish()) return false;
  }
  if (const json* views = top.field("views", false)) {
    ViewSettings& v = s.views;
    ObjectReader r(*views, "views", error);
    if (const json* k = r.field("kernel", false)) {
      ObjectReader kr(*k, "views.kernel", error);
      kr.integer("lags", v.kernel.lagCount);
      kr.boolean("log_lag", v.kernel.logLag);
      kr.strings("overlay", v.kernel.overlay);  // optional: sessions before overlays lack it
      if (!kr.finish()) return false;
    }
    if (const json* a = r.field("attention", false)) {
      ObjectReader ar(*a, "views.attention", error);
      ar.integer("T", v.attention.T);
      ar.integer("head", v.attention.head);
      ar.boolean("log_color", v.attentionLogColor);
      if (!ar.finish()) return false;
    }
    if (const json* n = r.field("norms", false)) {
      ObjectReader nr(*n, "views.norms", error);
      nr.integer("max_position", v.norms.maxPos);
      if (!nr.finish()) return false;
    }
    if (const json* p = r.field("probe", false)) {
      ObjectReader pr(*p, "views.probe", error);
      pr.string("target", v.probe.target);
      pr.boolean("family_only", v.probe.familyOnly);
      if (!pr.finish()) return false;
    }
    if (const json* d = r.field("diagnostics", false)) {
      ObjectReader dr(*d, "views.diagnostics", error);
      dr.string("target", v.diagnostics.target);
      if (!dr.finish()) return false;
    }
    if (!r.finish()) return false;
  }
  if (const json* t = top.field("training", true)) {
    try {
      s.training = readExperiment(*t, JsonPath{"", "training"});
    } catch (const std::exception& e) {
      *error = QString::fromUtf8(e.what());
      return false;
    }
  }
  if (const json* models = top.field("trained_models", false)) {
    if (!models->is_array()) {
      *error =
          QObject::tr("field 'trained_models' must be an array, not %1").arg(q(shownJson(*models)));
      return false;
    }
    for (size_t i = 0; i < models->size(); ++i) {
      SessionCheckpoint c;
      ObjectReader r((*models)[i], "trained_models[" + std::to_string(i) + "]", error);
      r.string("family", c.family, true);
      r.string("file", c.file, true);
      r.integer("step", c.step);
      if (!r.finish()) return false;
      s.checkpoints.push_back(c);
    }
  }
  if (!top.finish()) return false;
  out = s;
  return true;
}

SessionState captureSession(const MainWindow& w) {
  SessionState s;
  s.family = w.parameters()->familyId();
  s.values = w.parameters()->values();
  ExplorerRequest r;
  w.kernelView()->fillRequest(r);
  w.attentionView()->fillRequest(r);
  w.normsView()->fillRequest(r);
  w.probeView()->fillRequest(r);
  w.diagnosticsView()->fillRequest(r);
  s.views.kernel = r.kernel;
  s.views.attention = r.attention;
  s.views.norms = r.norms;
  s.views.probe = r.probe;
  s.views.diagnostics = r.diagnostics;
  if (auto* log = w.attentionView()->findChild<QCheckBox*>("logColor"))
    s.views.attentionLogColor = log->isChecked();
  s.tab = viewName(w.currentView()).toStdString();
  s.training = w.trainingPanel()->experiment();
  return s;
}

namespace {

// The settings controls of the explorer views, found by their object names.
struct ViewControls {
  QComboBox* lagCount = nullptr;
  QCheckBox* logLag = nullptr;
  QComboBox* attentionT = nullptr;
  QSpinBox* attentionHead = nullptr;
  QCheckBox* logColor = nullptr;
  QComboBox* maxPos = nullptr;
  QComboBox* probeTarget = nullptr;
  QComboBox* probeSet = nullptr;
  QComboBox* diagnosticsTarget = nullptr;
};

ViewControls findControls(const MainWindow& w) {
  ViewControls c;
  c.lagCount = w.kernelView()->findChild<QComboBox*>("lagCount");
  c.logLag = w.kernelView()->findChild<QCheckBox*>("logLag");
  c.attentionT = w.attentionView()->findChild<QComboBox*>("attentionT");
  c.attentionHead = w.attentionView()->findChild<QSpinBox*>("attentionHead");
  c.logColor = w.attentionView()->findChild<QCheckBox*>("logColor");
  c.maxPos = w.normsView()->findChild<QComboBox*>("maxPos");
  c.probeTarget = w.probeView()->findChild<QComboBox*>("probeTarget");
  c.probeSet = w.probeView()->findChild<QComboBox*>("probeSet");
  c.diagnosticsTarget = w.diagnosticsView()->findChild<QComboBox*>("diagnosticsTarget");
  return c;
}

QString choices(const QComboBox* box) {
  QStringList items;
  for (int i = 0; i < box->count(); ++i) items << box->itemText(i);
  return items.join(", ");
}

QString checkChoice(const QComboBox* box, const char* field, long long value) {
  if (box->findData(QVariant::fromValue(static_cast<int>(value))) >= 0) return {};
  return QObject::tr("field '%1' = %2 is not one of %3").arg(field).arg(value).arg(choices(box));
}
QString checkChoice(const QComboBox* box, const char* field, const std::string& text) {
  if (box->findText(q(text)) >= 0) return {};
  return QObject::tr("field '%1' = \"%2\" is not one of %3").arg(field, q(text), choices(box));
}

QString validateTraining(const MainWindow& w, const ExperimentSpec& e) {
  const auto tasks = trainingTaskIds();
  if (std::find(tasks.begin(), tasks.end(), e.base.task.id) == tasks.end()) {
    QStringList known;
    for (const auto& t : tasks) known << q(t);
    return QObject::tr("field 'training.config.task.id': unknown task '%1' (known: %2)")
        .arg(q(e.base.task.id), known.join(", "));
  }
  if (e.families.empty() || e.families.size() > static_cast<size_t>(TrainingPanel::kMaxFamilies))
    return QObject::tr("field 'training.families' has %1 families; the training tab trains 1 to %2")
        .arg(e.families.size())
        .arg(TrainingPanel::kMaxFamilies);
  for (const auto& f : e.families)
    if (!findFamily(f))
      return QObject::tr("field 'training.families': unknown family '%1'").arg(q(f));
  for (const auto& [f, params] : e.familyParams)
    if (!findFamily(f))
      return QObject::tr("field 'training.family_params': unknown family '%1'").arg(q(f));
  // Everything the runs need (task kernels, options and text file, family parameters, pins,
  // evaluation lengths against the budget, the device), named by field: a session that cannot
  // train is refused here, at load, not at Play.
  try {
    checkTrainable(e, JsonPath{"", "training"});
  } catch (const std::exception& ex) {
    return QString::fromUtf8(ex.what());
  }
  // Every value the training panel's controls hold, within their ranges and to their precision:
  // a value they would clamp or round is refused rather than silently changed.
  return w.trainingPanel()->controlsProblem(e, QStringLiteral("training."));
}

// Every parameter of the family: the session's values over the spec's defaults.
std::map<std::string, double> fullValues(const FamilyDescription& f, const SessionState& s) {
  std::map<std::string, double> v;
  for (const ParamSpec& p : f.params) {
    auto it = s.values.find(p.name);
    v[p.name] = it == s.values.end() ? p.defaultValue : it->second;
  }
  return v;
}

}  // namespace

QString validateSession(const MainWindow& w, const SessionState& s) {
  const FamilyDescription* family = findFamily(s.family);
  if (!family)
    return QObject::tr("field 'explorer.family': unknown family '%1' (see `poslab-cli families`)")
        .arg(q(s.family));
  for (const auto& [name, value] : s.values) {
    auto spec = std::find_if(family->params.begin(), family->params.end(),
                             [&](const ParamSpec& p) { return p.name == name; });
    if (spec == family->params.end())
      return QObject::tr("field 'explorer.values.%1': family %2 has no parameter '%1'")
          .arg(q(name), q(s.family));
    if (!std::isfinite(value) || value < spec->min || value > spec->max)
      return QObject::tr("field 'explorer.values.%1' = %2 is outside [%3, %4] for family %5")
          .arg(q(name))
          .arg(value, 0, 'g', 10)
          .arg(spec->min, 0, 'g', 6)
          .arg(spec->max, 0, 'g', 6)
          .arg(q(s.family));
    if (spec->integer && value != std::round(value))
      return QObject::tr("field 'explorer.values.%1' = %2 must be a whole number")
          .arg(q(name))
          .arg(value, 0, 'g', 10);
  }
  const std::string problem = checkEncoding(s.family, fullValues(*family, s));
  if (!problem.empty()) return QObject::tr("field 'explorer.values': %1").arg(q(problem));

  const ViewControls c = findControls(w);
  if (!c.lagCount || !c.logLag || !c.attentionT || !c.attentionHead || !c.logColor || !c.maxPos ||
      !c.probeTarget || !c.probeSet || !c.diagnosticsTarget)
    return QObject::tr("internal: a view's settings control is missing from the window");
  const ViewSettings& v = s.views;
  for (const QString& problem :
       {checkChoice(c.lagCount, "views.kernel.lags", v.kernel.lagCount),
        checkChoice(c.attentionT, "views.attention.T", v.attention.T),
        checkChoice(c.maxPos, "views.norms.max_position", v.norms.maxPos),
        checkChoice(c.probeTarget, "views.probe.target", v.probe.target),
        checkChoice(c.diagnosticsTarget, "views.diagnostics.target", v.diagnostics.target)})
    if (!problem.isEmpty()) return problem;
  if (v.kernel.overlay.size() > static_cast<size_t>(kMaxKernelOverlays))
    return QObject::tr(
               "field 'views.kernel.overlay' lists %1 families; the kernel view overlays "
               "at most %2")
        .arg(v.kernel.overlay.size())
        .arg(kMaxKernelOverlays);
  for (size_t i = 0; i < v.kernel.overlay.size(); ++i) {
    const std::string& f = v.kernel.overlay[i];
    if (!findFamily(f))
      return QObject::tr(
                 "field 'views.kernel.overlay[%1]': unknown family '%2' (see `poslab-cli "
                 "families`)")
          .arg(i)
          .arg(q(f));
    if (std::count(v.kernel.overlay.begin(), v.kernel.overlay.end(), f) > 1)
      return QObject::tr("field 'views.kernel.overlay' lists family '%1' twice").arg(q(f));
  }
  if (v.attention.head < 1 || v.attention.head > kMaxHead)
    return QObject::tr("field 'views.attention.head' = %1 is outside [1, %2]")
        .arg(v.attention.head)
        .arg(kMaxHead);
  if (!parseWindowView(q(s.tab)))
    return QObject::tr("field 'tab' = \"%1\" is not one of %2").arg(q(s.tab), windowViewNames());
  const QString training = validateTraining(w, s.training);
  if (!training.isEmpty() || s.checkpoints.empty()) return training;
  // Trained models: one per training family, in the same order.
  const auto& families = s.training.families;
  if (s.checkpoints.size() != families.size())
    return QObject::tr("field 'trained_models' lists %1 models but 'training.families' has %2")
        .arg(s.checkpoints.size())
        .arg(families.size());
  for (size_t i = 0; i < families.size(); ++i) {
    if (s.checkpoints[i].family != families[i])
      return QObject::tr(
                 "field 'trained_models[%1].family' is \"%2\" but training family %1 is "
                 "\"%3\"")
          .arg(i)
          .arg(q(s.checkpoints[i].family), q(families[i]));
    if (s.checkpoints[i].file.empty())
      return QObject::tr("field 'trained_models[%1].file' is empty").arg(i);
  }
  return {};
}

bool applySession(MainWindow& w, const SessionState& s, QString* error) {
  const QString problem = validateSession(w, s);
  if (!problem.isEmpty()) {
    *error = problem;
    return false;
  }
  // The only step that can still refuse; it changes nothing when it does.
  QStringList checkpoints;
  for (const SessionCheckpoint& c : s.checkpoints) checkpoints << q(c.file);
  const bool trainingOk =
      checkpoints.isEmpty()
          ? w.trainingPanel()->setExperiment(s.training, error)
          : w.trainingPanel()->setExperimentWithCheckpoints(s.training, checkpoints, error);
  if (!trainingOk) {
    *error = (checkpoints.isEmpty() ? QObject::tr("training setup: %1")
                                    : QObject::tr("trained models: %1"))
                 .arg(*error);
    return false;
  }
  // One Edit > Undo step takes the explorer back to where it was before the load.
  auto* undo = w.findChild<ParameterUndo*>();
  if (undo) undo->stack()->beginMacro(QObject::tr("Load state"));
  ParameterPanel* params = w.parameters();
  params->setFamily(s.family);
  for (const auto& [name, value] : fullValues(*findFamily(s.family), s))
    params->setValue(name, value);
  if (undo) undo->stack()->endMacro();

  const ViewControls c = findControls(w);
  const ViewSettings& v = s.views;
  c.lagCount->setCurrentIndex(c.lagCount->findData(static_cast<int>(v.kernel.lagCount)));
  c.logLag->setChecked(v.kernel.logLag);
  w.kernelView()->setOverlay(v.kernel.overlay);
  c.attentionT->setCurrentIndex(c.attentionT->findData(static_cast<int>(v.attention.T)));
  // The view narrows the range to the family's heads when its next result arrives.
  c.attentionHead->setMaximum(
      std::max<int>(c.attentionHead->maximum(), static_cast<int>(v.attention.head)));
  c.attentionHead->setValue(static_cast<int>(v.attention.head));
  c.logColor->setChecked(v.attentionLogColor);
  c.maxPos->setCurrentIndex(c.maxPos->findData(static_cast<int>(v.norms.maxPos)));
  c.probeTarget->setCurrentText(q(v.probe.target));
  c.probeSet->setCurrentIndex(v.probe.familyOnly ? 1 : 0);
  c.diagnosticsTarget->setCurrentText(q(v.diagnostics.target));
  w.showView(*parseWindowView(q(s.tab)));
  return true;
}

}  // namespace poslab::ui
