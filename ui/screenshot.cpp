#include "screenshot.h"

#include <QApplication>
#include <QBuffer>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QPixmap>
#include <QSplitter>
#include <QTimer>

#include <cstdio>
#include <ostream>

#include "app_shell.h"
#include "bridge/worker_adapter.h"
#include "command_line_start.h"
#include "explorer/explorer_controller.h"
#include "io/atomic_file.h"
#include "lessons/lesson.h"
#include "main_window.h"
#include "menus/file_menu.h"
#include "presentation/presentation_mode.h"
#include "session/family_file_gate.h"
#include "training/training_panel.h"
#include "training/training_setup_form.h"
#include "util/error.h"

namespace poslab::ui {

namespace {
constexpr int kPollMs = 50;             // how often the wait checks whether the view has settled
constexpr int kLessonDockWidth = 380;   // logical pixels added for the Lessons dock
constexpr int kLeftColumnWidth = 380;   // the parameter column, as the window starts
constexpr int kTrainingLineMs = 30000;  // a progress line while a screenshot's runs train

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
  shell.sessions()->setKeepsRecentFiles(false);
  // The command line named these files, and there is no one to answer the notice that loading
  // runs code; everything else goes as `poslab` applies its command line: the session, preset,
  // family and values, view, lesson and presentation in that order, each TorchScript module and
  // trained model read and checked off the UI thread through the window's gate.
  shell.familyGate()->setAgreed();
  if (req.presentation) shell.presentation()->setUseFullScreen(false);
  CommandLineRequest steps;
  steps.session = req.session;
  steps.preset = req.preset;
  steps.family = req.family;
  steps.sets = req.sets;
  if (!req.preset.isEmpty())
    steps.view = WindowView::Training;  // a preset's shot is of its training
  else if (req.session.isEmpty() || !req.sessionView)
    steps.view = req.view;  // else the session's own tab
  if (!req.lesson.isEmpty()) {
    try {
      steps.lesson = QString::fromStdString(poslab::lessonFile(req.lesson.toStdString()));
    } catch (const Error& e) {
      return QString::fromStdString(e.what());
    }
  }
  steps.lessonStep = req.lessonStep;
  steps.presentation = req.presentation;
  CommandLineStart start(shell, steps);
  bool applied = false;
  QString problem;
  QObject::connect(&start, &CommandLineStart::finished, &start, [&](bool ok, const QString& error) {
    applied = ok;
    problem = error;
  });
  start.continueInWindow();
  if (!waitUntil([&] { return start.isFinished(); }, req.timeoutMs))
    return QObject::tr("timed out after %1 s loading what the command line names")
        .arg(req.timeoutMs / 1000);
  if (!applied) return problem;
  const WindowView view = window.currentView();
  // A preset's setup is run as loaded; a session's and a lesson's too; otherwise a short demo run.
  const bool ownTrainingSetup =
      !req.session.isEmpty() || !req.preset.isEmpty() || !req.lesson.isEmpty();
  if (!req.lesson.isEmpty() && !req.presentation) {
    // The Lessons dock beside the views, in a window widened by its width.
    window.resize(req.width + kLessonDockWidth, req.height);
    window.mainSplitter()->setSizes({kLeftColumnWidth, req.width});
  }
  window.show();
  bool finished = false;
  if (view == WindowView::Training) {
    TrainingPanel* training = window.trainingPanel();
    if (!ownTrainingSetup) configureShortTraining(training);
    if (!training->allFinished()) training->play();
    if (training->runCount() == 0) return training->statusText();  // the setup was refused
    // A preset's runs train for minutes or hours: where they are, every kTrainingLineMs.
    const long long steps = training->run(0)->spec().config.run.steps;
    QElapsedTimer clock, sinceLine;
    clock.start();
    sinceLine.start();
    finished = waitUntil(
        [&] {
          if (sinceLine.elapsed() >= kTrainingLineMs && !training->allFinished()) {
            sinceLine.restart();
            const long long step = training->stepCount();
            QString line = QStringLiteral("poslab: training for the screenshot: step %1 of %2")
                               .arg(step)
                               .arg(steps);
            if (step > 0)  // the steps' rate so far
              line +=
                  QStringLiteral(", its steps' ETA %1 s (then its evaluation)")
                      .arg(qRound64(static_cast<double>(clock.elapsed()) / 1000 /
                                    static_cast<double>(step) * static_cast<double>(steps - step)));
            std::fprintf(stderr, "%s\n", qPrintable(line));
          }
          return training->allFinished();
        },
        req.timeoutMs);
    if (const QString failure = training->runFailure(); !failure.isEmpty()) return failure;
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
