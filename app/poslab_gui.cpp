// poslab: the desktop application. --session FILE opens a saved session, --preset NAME loads a
// paper experiment and starts training, --lesson NAME opens a lesson (at --lesson-step N),
// --presentation starts in presentation mode. With --screenshot it renders one view offscreen,
// writes a PNG and exits (0, or 2 with the reason on stderr), for scripts, CI and the docs.
#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QGuiApplication>
#include <QLabel>
#include <QStatusBar>
#include <QTextStream>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "app_shell.h"
#include "command_line_start.h"
#include "error_report.h"
#include "explorer/explorer_controller.h"
#include "explorer/parameter_panel.h"
#include "lessons/lesson.h"
#include "lessons/lesson_player.h"
#include "limits/work_budget.h"
#include "main_window.h"
#include "menus/file_menu.h"
#include "menus/lesson_menus.h"
#include "menus/presets_menu.h"
#include "presentation/presentation_mode.h"
#include "screenshot.h"
#include "training/training_panel.h"
#include "util/error.h"
#include "util/threads.h"

namespace {

constexpr int kUsageError = 2;  // as poslab-cli: bad arguments or a failed computation

int fail(const QString& message) {
  QTextStream(stderr) << "poslab: error: " << message << "\n";
  return kUsageError;
}

bool hasText(const char* variable) {
  const char* value = std::getenv(variable);
  return value && *value;
}

// A screenshot, --help and --version open no window: without a display they run on the offscreen
// platform. Only chosen when the user has not chosen a platform.
void preferOffscreenWithoutWindow(int argc, char** argv) {
  bool windowless = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--screenshot", 12) == 0) windowless = true;
    for (const char* flag : {"--help", "-h", "--help-all", "--version", "-v"})
      if (std::strcmp(argv[i], flag) == 0) windowless = true;
  }
  if (windowless && !hasText("DISPLAY") && !hasText("WAYLAND_DISPLAY") &&
      !hasText("QT_QPA_PLATFORM"))
    setenv("QT_QPA_PLATFORM", "offscreen", 1);
}

// Without a display Qt's xcb (or wayland) platform aborts inside QApplication ("could not connect
// to display", exit 134). Say what to do instead, before constructing it: the platform Qt would
// pick is QT_QPA_PLATFORM, else xcb or wayland, which need DISPLAY or WAYLAND_DISPLAY.
bool displayMissing() {
  const char* platformVariable = std::getenv("QT_QPA_PLATFORM");
  const std::string platform = platformVariable ? platformVariable : "";
  const bool x11 = hasText("DISPLAY"), wayland = hasText("WAYLAND_DISPLAY");
  if (platform.empty()) return !x11 && !wayland;
  if (platform.rfind("xcb", 0) == 0) return !x11;
  if (platform.rfind("wayland", 0) == 0) return !wayland;
  return false;  // offscreen, minimal, vnc, eglfs, ...: the platform knows what it needs
}

// QGuiApplication takes -session/--session for itself (X11 session management) and removes it
// from the arguments; our --session is renamed before QApplication sees it. The single-dash form
// stays Qt's: a session manager restarts applications with "-session ID".
constexpr const char* kSessionArg = "--poslab-session";
std::vector<std::string> renameSessionArgument(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--") break;
    if (args[i] == "--session")
      args[i] = kSessionArg;
    else if (args[i].rfind("--session=", 0) == 0)
      args[i] = std::string(kSessionArg) + args[i].substr(9);
  }
  return args;
}

// Prints one line when the window's first view has been drawn, then quits after `ms` with exit
// code 0 if it drew without error (1 otherwise, or 1 if nothing was drawn within a minute).
void scheduleQuitAfterFirstDraw(poslab::ui::AppShell& shell, int ms) {
  poslab::ui::MainWindow& window = shell.window();
  auto drawn = std::make_shared<bool>(false);
  QObject::connect(shell.explorer(), &poslab::ui::ExplorerController::settled, &window,
                   [drawn, ms, &window](poslab::ui::ExplorerView, bool ok) {
                     if (*drawn) return;  // only the first view
                     *drawn = true;
                     QTextStream(stdout) << "poslab: window shown on "
                                         << QGuiApplication::platformName() << ", first view drawn "
                                         << (ok ? QStringLiteral("ok")
                                                : "with an error: " + window.errorLabel()->text())
                                         << Qt::endl;
                     QTimer::singleShot(ms, qApp, [ok] { QCoreApplication::exit(ok ? 0 : 1); });
                   });
  QTimer::singleShot(60000 + ms, qApp, [] {
    QTextStream(stderr) << "poslab: error: no view was drawn within a minute" << Qt::endl;
    QCoreApplication::exit(1);
  });
}

}  // namespace

int main(int argc, char** argv) {
  preferOffscreenWithoutWindow(argc, argv);
  if (displayMissing()) {
    std::fprintf(stderr,
                 "poslab: error: no display to open the window on (DISPLAY and WAYLAND_DISPLAY "
                 "are unset): run it on a desktop, or pass --screenshot FILE, which renders "
                 "offscreen\n");
    return kUsageError;
  }
  std::vector<std::string> renamed = renameSessionArgument(argc, argv);
  std::vector<char*> argvRenamed;
  for (auto& a : renamed) argvRenamed.push_back(a.data());
  argvRenamed.push_back(nullptr);
  argv = argvRenamed.data();
  QApplication app(argc, argv);
  QApplication::setApplicationName("poslab");
  QApplication::setOrganizationName("poslab");  // QSettings: ~/.config/poslab/poslab.conf
  QApplication::setApplicationVersion("0.1.0");
  try {
    poslab::configureThreads();
  } catch (const poslab::Error& e) {
    return fail(QString::fromStdString(e.what()));
  }

  QCommandLineParser parser;
  parser.setApplicationDescription(
      "PosLab: explore and train relative positional encodings (kernel and basis functions, "
      "attention maps, feature norms, kernel probe, PJ diagnostics, live training).");
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption screenshot("screenshot", "Render offscreen, write a PNG to FILE and exit.",
                                "FILE");
  QCommandLineOption view("view", "Tab to show: " + poslab::ui::windowViewNames() + ".", "VIEW",
                          "kernel");
  QCommandLineOption family("family", "Family id (see `poslab-cli families`).", "ID");
  QCommandLineOption set("set", "Family parameter NAME=VALUE (repeatable).", "NAME=VALUE");
  QCommandLineOption sessionHelp("session", "Open a saved session (.poslab file).", "FILE");
  QCommandLineOption session(QString(kSessionArg).mid(2), "--session, renamed.", "FILE");
  session.setFlags(QCommandLineOption::HiddenFromHelp);
  QCommandLineOption preset("preset",
                            "Load a preset (a name from resources/presets, or a preset JSON file) "
                            "into the training tab and start it; with --screenshot, run its first "
                            "seed to the end and shoot the training view.",
                            "NAME");
  QCommandLineOption timeout("timeout",
                             "With --screenshot: give up after SECONDS (default 300, with "
                             "--lesson 900, with --preset 86400).",
                             "SECONDS");
  QCommandLineOption quitAfter(
      "quit-after",
      "Quit SECONDS after the window is shown and its first view has been drawn (demos, the README "
      "check); also from the environment variable POSLAB_QUIT_AFTER. Exit code 0 if that view "
      "drew without error.",
      "SECONDS");
  QCommandLineOption lesson("lesson",
                            "Open a lesson: a name from resources/lessons (e.g. 01-rope-rotation) "
                            "or a lesson JSON file.",
                            "NAME");
  QCommandLineOption lessonStep("lesson-step", "With --lesson: open it at step N (from 1).", "N",
                                "1");
  QCommandLineOption presentation(
      "presentation",
      "Start in presentation mode (View > Presentation, F11); with --screenshot at the "
      "window's size.");
  parser.addOptions({screenshot, view, family, set, sessionHelp, session, preset, timeout,
                     quitAfter, lesson, lessonStep, presentation});
  // The work budgets (limits/work_budget.h, docs/LIMITS.md): a view or training form over them
  // computes nothing and says so; these raise them, as poslab-cli's options of the same names.
  QCommandLineOption budget("budget",
                            "Multiply every work and memory budget by FACTOR, for a request you "
                            "mean to run (docs/LIMITS.md).",
                            "FACTOR");
  QCommandLineOption noBudget("no-budget",
                              "Lift every work and memory budget (a view may compute for minutes "
                              "or exhaust memory).");
  parser.addOptions({budget, noBudget});
  parser.process(app);  // --help and --version print and exit here
  if (parser.isSet(budget)) {
    bool ok = false;
    const double factor = parser.value(budget).toDouble(&ok);
    if (!ok || !(factor > 0) || !std::isfinite(factor))
      return fail("--budget '" + parser.value(budget) + "' is not a positive factor");
    poslab::setWorkBudgetScale(factor);
  }
  if (parser.isSet(noBudget)) poslab::setWorkBudgetScale(std::numeric_limits<double>::infinity());

  const auto chosenView = poslab::ui::parseWindowView(parser.value(view));
  if (!chosenView)
    return fail("unknown --view '" + parser.value(view) + "' (" + poslab::ui::windowViewNames() +
                ")");
  std::vector<std::pair<QString, double>> sets;
  for (const QString& s : parser.values(set)) {
    std::pair<QString, double> nv;
    if (!poslab::ui::parseSet(s, nv)) return fail("--set '" + s + "' is not NAME=VALUE");
    sets.push_back(nv);
  }

  bool stepOk = false;
  const int stepNumber = parser.value(lessonStep).toInt(&stepOk);
  if (!stepOk || stepNumber < 1)
    return fail("--lesson-step '" + parser.value(lessonStep) +
                "' is not a step number (1, 2, ...)");
  if (parser.isSet(lessonStep) && !parser.isSet(lesson))
    return fail("--lesson-step needs --lesson");
  QString lessonPath;
  if (parser.isSet(lesson)) {
    try {
      lessonPath = QString::fromStdString(poslab::lessonFile(parser.value(lesson).toStdString()));
    } catch (const poslab::Error& e) {
      return fail(QString::fromStdString(e.what()));
    }
  }

  if (parser.isSet(screenshot)) {
    poslab::ui::ScreenshotRequest req;
    req.file = parser.value(screenshot);
    req.view = *chosenView;
    req.family = parser.value(family);
    req.sets = sets;
    req.session = parser.value(session);
    req.sessionView = !parser.isSet(view);
    req.preset = parser.value(preset);
    if (req.preset.isEmpty() && parser.isSet(preset)) return fail("--preset needs a name");
    req.lesson = lessonPath;
    req.lessonStep = stepNumber - 1;
    req.presentation = parser.isSet(presentation);
    if (parser.isSet(timeout) || !req.preset.isEmpty() || !req.lesson.isEmpty()) {
      // A lesson's training step trains for a few minutes, 4 on a busy 2-core machine
      // (docs/LESSONS.md); a preset's first seed for up to hours.
      bool ok = true;
      const double seconds = parser.isSet(timeout)   ? parser.value(timeout).toDouble(&ok)
                             : !req.preset.isEmpty() ? 86400
                                                     : 900;
      if (!ok || !(seconds > 0))
        return fail("--timeout '" + parser.value(timeout) +
                    "' is not a positive number of seconds");
      req.timeoutMs = static_cast<int>(std::min(seconds, 2e6) * 1000);
    }
    const QString problem = poslab::ui::takeScreenshot(req);
    if (!problem.isEmpty()) return fail(problem);
    QTextStream(stdout) << "wrote " << req.file << "\n";
    return 0;
  }

  poslab::ui::AppShell shell;
  poslab::ui::MainWindow& window = shell.window();
  shell.sessions()->persistLayout();
  // What the command line asks for, in order; what loads TorchScript modules or trained models
  // goes through the window's gate once the window is shown (command_line_start.h).
  poslab::ui::CommandLineRequest request;
  request.session = parser.value(session);
  request.preset = parser.value(preset);
  if (parser.isSet(preset) && request.preset.isEmpty()) return fail("--preset needs a name");
  request.family = parser.value(family);
  request.sets = sets;
  if (parser.isSet(view) || (!parser.isSet(session) && !parser.isSet(preset)))
    request.view = *chosenView;
  request.lesson = lessonPath;
  request.lessonStep = stepNumber - 1;
  request.presentation = parser.isSet(presentation);
  poslab::ui::CommandLineStart start(shell, request);
  {
    QString error;
    if (!start.startNow(&error)) return fail(error);
  }
  QObject::connect(&start, &poslab::ui::CommandLineStart::finished, &window,
                   [](bool ok, const QString& error) {
                     // Also shown in the window; said here for whoever started it from a shell.
                     if (!ok && !error.isEmpty())
                       QTextStream(stderr) << "poslab: error: " << error << Qt::endl;
                   });
  window.show();
  QString quitText = parser.value(quitAfter);
  if (quitText.isEmpty()) quitText = qEnvironmentVariable("POSLAB_QUIT_AFTER");
  if (!quitText.isEmpty()) {
    bool ok = false;
    const double seconds = quitText.toDouble(&ok);
    if (!ok || !(seconds >= 0) || seconds > 1e6)
      return fail("--quit-after '" + quitText + "' is not a number of seconds");
    scheduleQuitAfterFirstDraw(shell, static_cast<int>(seconds * 1000));
  }
  start.continueInWindow();  // a preset plays once it is loaded
  // A first start offers the lessons, unless the command line already chose what to show or
  // the run is a timed check (--quit-after).
  if (quitText.isEmpty() && lessonPath.isEmpty() && !parser.isSet(session) && !parser.isSet(preset))
    poslab::ui::offerLessonsOnFirstStart(&window, window.lessonDock());
  return app.exec();
}
