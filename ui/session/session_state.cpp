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
#include "lessons/window_state_check.h"
#include "session/session_families.h"
#include "session/session_work_check.h"
#include "training/training_panel.h"
#include "training/training_setup.h"

namespace poslab::ui {

using nlohmann::json;

namespace {

static_assert(kMaxKernelOverlays == poslab::kMaxKernelOverlays, "one overlay limit");

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
  // The checks a lesson's state gets without a window (lessons/window_state_check.h), with this
  // window's families (loaded ones included).
  if (const std::string p = explorerValuesProblem(s.family, family->params, s.values); !p.empty())
    return q(p);
  const std::string problem = checkEncoding(s.family, fullValues(*family, s));
  if (!problem.empty()) return QObject::tr("field 'explorer.values': %1").arg(q(problem));

  const ViewSettings& v = s.views;
  for (const std::string& choice :
       {viewChoiceProblem(KernelView::lagCounts(), "views.kernel.lags", v.kernel.lagCount),
        viewChoiceProblem(AttentionView::lengths(), "views.attention.T", v.attention.T),
        viewChoiceProblem(NormsView::maxPositions(), "views.norms.max_position", v.norms.maxPos),
        viewChoiceProblem(ProbeView::targets(), "views.probe.target", v.probe.target),
        viewChoiceProblem(DiagnosticsView::targets(), "views.diagnostics.target",
                          v.diagnostics.target),
        kernelOverlayProblem(v.kernel.overlay,
                             [](const std::string& id) { return findFamily(id) != nullptr; })})
    if (!choice.empty()) return q(choice);
  if (v.attention.head < 1 || v.attention.head > kMaxAttentionViewHead)
    return QObject::tr("field 'views.attention.head' = %1 is outside [1, %2]")
        .arg(v.attention.head)
        .arg(kMaxAttentionViewHead);
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
