#include "screenshot.h"

#include <QApplication>
#include <QBuffer>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QPixmap>
#include <QSplitter>
#include <QTimer>

#include <map>
#include <ostream>

#include "app_shell.h"
#include "bridge/catalog.h"
#include "explorer/explorer_controller.h"
#include "explorer/parameter_panel.h"
#include "io/atomic_file.h"
#include "lessons/lesson.h"
#include "lessons/lesson_player.h"
#include "main_window.h"
#include "menus/presets_menu.h"
#include "presentation/presentation_mode.h"
#include "session/session_families.h"
#include "session/session_io.h"
#include "training/training_panel.h"
#include "training/training_setup_form.h"
#include "util/error.h"

namespace poslab::ui {

namespace {
constexpr int kPollMs = 50;            // how often the wait checks whether the view has settled
constexpr int kLessonDockWidth = 380;  // logical pixels added for the Lessons dock
constexpr int kLeftColumnWidth = 380;  // the parameter column, as the window starts

// A short compare run that finishes in seconds on a CPU: enough to show every curve.
void configureShortTraining(TrainingPanel* panel) {
  TrainingFormSettings s = panel->setupForm()->settings();
  s.families = {"jordan-stabilized", "rope"};
  s.steps = 40;
  s.batch = 8;
  s.trainLength = 32;
  s.evalLengths = QStringLiteral("32,64,128");
  panel->setupForm()->setSettings(s);
}

// Runs the event loop until done() or the timeout; false on timeout.
template <typename Done>
bool waitUntil(Done done, int timeoutMs) {
  QElapsedTimer clock;
  clock.start();
  QEventLoop loop;
  QTimer poll;
  QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
    if (done() || clock.elapsed() > timeoutMs) loop.quit();
  });
  poll.start(kPollMs);
  if (!done()) loop.exec();
  return done();
}
}  // namespace

bool parseSet(const QString& text, std::pair<QString, double>& out) {
  const int eq = text.indexOf('=');
  if (eq <= 0) return false;
  bool ok = false;
  const double v = text.mid(eq + 1).trimmed().toDouble(&ok);
  if (!ok) return false;
  out = {text.left(eq).trimmed(), v};
  return true;
}

QString takeScreenshot(const ScreenshotRequest& req) {
  AppShell shell;
  MainWindow& window = shell.window();
  window.resize(req.width, req.height);
  WindowView view = req.view;
  if (!req.session.isEmpty()) {
    SessionState state;
    QString error;
    if (!preloadSessionFamilies(req.session, &error)) return error;  // its file families, first
    if (!loadSessionFile(req.session, &state, &error)) return error;
    if (!applySession(shell.sessionParts(), state, &error))
      return QObject::tr("session file %1: %2").arg(req.session, error);
    if (req.sessionView) view = *parseWindowView(QString::fromStdString(state.tab));
  }
  // A preset's setup is run as loaded; a session's too; otherwise a short demo run.
  bool ownTrainingSetup = !req.session.isEmpty();
  if (!req.preset.isEmpty()) {
    QString error, note;
    if (!shell.loadPreset(req.preset, &error, &note)) return error;
    view = WindowView::Training;
    ownTrainingSetup = true;
  }
  ParameterPanel* panel = window.parameters();
  if (!req.family.isEmpty() && !panel->setFamily(req.family.toStdString()))
    return QObject::tr("unknown family '%1'; see `poslab-cli families`").arg(req.family);
  // Core validates the whole set first, so a spin box never silently clamps a bad value.
  std::map<std::string, double> values = panel->values();
  for (const auto& [name, value] : req.sets) {
    if (!values.count(name.toStdString()))
      return QObject::tr("family %1 has no parameter '%2'")
          .arg(QString::fromStdString(panel->familyId()), name);
    values[name.toStdString()] = value;
  }
  const std::string problem = checkEncoding(panel->familyId(), values);
  if (!problem.empty()) return QString::fromStdString(problem);
  for (const auto& [name, value] : req.sets) panel->setValue(name.toStdString(), value);

  window.showView(view);
  if (!req.lesson.isEmpty()) {
    QString error;
    try {
      const QString file = QString::fromStdString(poslab::lessonFile(req.lesson.toStdString()));
      if (!shell.lessons()->openFile(file, &error, req.lessonStep)) return error;
    } catch (const Error& e) {
      return QString::fromStdString(e.what());
    }
    view = window.currentView();
    ownTrainingSetup = true;  // the lesson's, as it set it
    if (!req.presentation) {
      // The Lessons dock beside the views, in a window widened by its width.
      window.resize(req.width + kLessonDockWidth, req.height);
      window.mainSplitter()->setSizes({kLeftColumnWidth, req.width});
      window.lessonDock()->show();
    }
  }
  if (req.presentation) {
    shell.presentation()->setUseFullScreen(false);
    shell.presentation()->enter();
  }
  window.show();
  bool finished = false;
  if (view == WindowView::Training) {
    TrainingPanel* training = window.trainingPanel();
    if (!ownTrainingSetup) configureShortTraining(training);
    if (!training->allFinished()) training->play();
    if (training->runCount() == 0) return training->statusText();  // the setup was refused
    finished = waitUntil([&] { return training->allFinished(); }, req.timeoutMs);
    training->replot();
  } else {
    const auto shown = static_cast<ExplorerView>(view);
    ExplorerController* c = shell.explorer();
    finished = waitUntil([&] { return !c->busy() && c->isUpToDate(shown); }, req.timeoutMs);
    if (finished && !c->lastError().isEmpty()) return c->lastError();
  }
  if (!finished)
    return QObject::tr("timed out after %1 s waiting for the view").arg(req.timeoutMs / 1000);
  QCoreApplication::processEvents();  // the last replot's paint
  const QPixmap shot = window.grab();
  // Encoded in memory, then written atomically: a full disk leaves the previous file intact.
  QByteArray png;
  QBuffer buffer(&png);
  buffer.open(QIODevice::WriteOnly);
  if (!shot.save(&buffer, "PNG")) return QObject::tr("cannot encode the PNG for %1").arg(req.file);
  try {
    writeFileAtomically(req.file.toStdString(), [&](std::ostream& os) {
      os.write(png.constData(), static_cast<std::streamsize>(png.size()));
    });
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace poslab::ui
