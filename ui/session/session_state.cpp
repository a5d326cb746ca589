#include "session/session_state.h"

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
#include "session/session_families.h"
#include "session/session_work_check.h"
#include "training/training_panel.h"
#include "training/training_setup.h"

namespace poslab::ui {

using nlohmann::json;

namespace {

constexpr long long kMaxHead = 4096;  // the compute clamps the shown head to the family's heads

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

}  // namespace

// sessionToJson and sessionFromJson: session_json.cpp (QtCore only, fuzzed).

SessionState captureSession(const SessionParts& w) {
  const ExplorerWidgets& e = w.explorer;
  SessionState s;
  s.family = e.parameters->familyId();
  s.values = e.parameters->values();
  s.views.kernel = e.kernel->settings();
  const AttentionViewSettings attention = e.attention->settings();
  s.views.attention = attention.map;
  s.views.attentionLogColor = attention.logColor;
  s.views.norms = e.norms->settings();
  s.views.probe = e.probe->settings();
  s.views.diagnostics = e.diagnostics->settings();
  s.tab = windowViewName(w.views->currentView()).toStdString();
  s.training = w.training->experiment();
  s.familyFiles = usedFamilyFiles(s);
  return s;
}

namespace {

// A view setting must be one of the values the view offers (its typed list of choices).
QString checkChoice(const std::vector<long long>& offered, const char* field, long long value) {
  if (std::find(offered.begin(), offered.end(), value) != offered.end()) return {};
  QStringList items;
  for (long long v : offered) items << QString::number(v);
  return QObject::tr("field '%1' = %2 is not one of %3")
      .arg(field)
      .arg(value)
      .arg(items.join(", "));
}
QString checkChoice(const std::vector<std::string>& offered, const char* field,
                    const std::string& text) {
  if (std::find(offered.begin(), offered.end(), text) != offered.end()) return {};
  QStringList items;
  for (const std::string& v : offered) items << q(v);
  return QObject::tr("field '%1' = \"%2\" is not one of %3").arg(field, q(text), items.join(", "));
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

QString validateSession(const SessionParts& w, const SessionState& s, bool withTraining) {
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

  const ViewSettings& v = s.views;
  for (const QString& problem :
       {checkChoice(KernelView::lagCounts(), "views.kernel.lags", v.kernel.lagCount),
        checkChoice(AttentionView::lengths(), "views.attention.T", v.attention.T),
        checkChoice(NormsView::maxPositions(), "views.norms.max_position", v.norms.maxPos),
        checkChoice(ProbeView::targets(), "views.probe.target", v.probe.target),
        checkChoice(DiagnosticsView::targets(), "views.diagnostics.target", v.diagnostics.target)})
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
  // The shown view's work against the budget: a file asking for more is refused at load.
  if (const QString work = sessionWorkProblem(s); !work.isEmpty()) return work;
  if (!withTraining) return {};
  // The training tab's one check of a setup, with everything its runs need: a session that
  // cannot train is refused at load, not at Play.
  const QString training = trainingSetupProblem(s.training, QStringLiteral("training."),
                                                /*checkRuns=*/true);
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

bool applySession(const SessionParts& w, const SessionState& s, QString* error, bool withTraining) {
  // Its file families first: the checks below need them loaded, as they were saved.
  if (const QString families = loadSessionFamilies(s); !families.isEmpty()) {
    *error = families;
    return false;
  }
  const QString problem = validateSession(w, s, withTraining);
  if (!problem.isEmpty()) {
    *error = problem;
    return false;
  }
  // The only step that can still refuse; it changes nothing when it does.
  QStringList checkpoints;
  for (const SessionCheckpoint& c : s.checkpoints) checkpoints << q(c.file);
  bool trainingOk = true;
  if (withTraining)
    trainingOk = checkpoints.isEmpty()
                     ? w.training->setExperiment(s.training, error)
                     : w.training->setExperimentWithCheckpoints(s.training, checkpoints, error);
  if (!trainingOk) {
    *error = (checkpoints.isEmpty() ? QObject::tr("training setup: %1")
                                    : QObject::tr("trained models: %1"))
                 .arg(*error);
    return false;
  }
  // One Edit > Undo step takes the explorer back to where it was before the load.
  if (w.undo) w.undo->beginMacro(QObject::tr("Load state"));
  const ExplorerWidgets& e = w.explorer;
  e.parameters->setFamily(s.family);
  for (const auto& [name, value] : fullValues(*findFamily(s.family), s))
    e.parameters->setValue(name, value);
  if (w.undo) w.undo->endMacro();

  const ViewSettings& v = s.views;
  e.kernel->setSettings(v.kernel);
  e.attention->setSettings({v.attention, v.attentionLogColor});
  e.norms->setSettings(v.norms);
  e.probe->setSettings(v.probe);
  e.diagnostics->setSettings(v.diagnostics);
  w.views->showView(*parseWindowView(q(s.tab)));
  return true;
}

}  // namespace poslab::ui
