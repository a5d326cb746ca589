// poslab: the desktop application. With --screenshot it renders one view offscreen, writes a
// PNG and exits (0, or 2 with the reason on stderr), for scripts, CI and the docs.
#include <QApplication>
#include <QCommandLineParser>
#include <QTextStream>

#include <cstdlib>
#include <cstring>

#include "explorer/parameter_panel.h"
#include "main_window.h"
#include "screenshot.h"
#include "util/threads.h"

namespace {

constexpr int kUsageError = 2;  // as poslab-cli: bad arguments or a failed computation

int fail(const QString& message) {
  QTextStream(stderr) << "poslab: error: " << message << "\n";
  return kUsageError;
}

// Offscreen rendering needs no display; only choose it when the user has not chosen a platform.
void preferOffscreenForScreenshots(int argc, char** argv) {
  bool screenshot = false;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--screenshot", 12) == 0) screenshot = true;
  if (screenshot && !std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY") &&
      !std::getenv("QT_QPA_PLATFORM"))
    setenv("QT_QPA_PLATFORM", "offscreen", 1);
}

}  // namespace

int main(int argc, char** argv) {
  preferOffscreenForScreenshots(argc, argv);
  QApplication app(argc, argv);
  QApplication::setApplicationName("poslab");
  QApplication::setApplicationVersion("0.1.0");
  poslab::configureThreads();

  QCommandLineParser parser;
  parser.setApplicationDescription(
      "PosLab: explore and train relative positional encodings (kernel and basis functions, "
      "attention maps, feature norms, kernel probe, PJ diagnostics, live training).");
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption screenshot("screenshot", "Render offscreen, write a PNG to FILE and exit.", "FILE");
  QCommandLineOption view("view", "Tab to show: " + poslab::ui::windowViewNames() + ".", "VIEW", "kernel");
  QCommandLineOption family("family", "Family id (see `poslab-cli families`).", "ID");
  QCommandLineOption set("set", "Family parameter NAME=VALUE (repeatable).", "NAME=VALUE");
  parser.addOptions({screenshot, view, family, set});
  parser.process(app);  // --help and --version print and exit here

  const auto chosenView = poslab::ui::parseWindowView(parser.value(view));
  if (!chosenView) return fail("unknown --view '" + parser.value(view) + "' (" + poslab::ui::windowViewNames() + ")");
  std::vector<std::pair<QString, double>> sets;
  for (const QString& s : parser.values(set)) {
    std::pair<QString, double> nv;
    if (!poslab::ui::parseSet(s, nv)) return fail("--set '" + s + "' is not NAME=VALUE");
    sets.push_back(nv);
  }

  if (parser.isSet(screenshot)) {
    poslab::ui::ScreenshotRequest req;
    req.file = parser.value(screenshot);
    req.view = *chosenView;
    req.family = parser.value(family);
    req.sets = sets;
    const QString problem = poslab::ui::takeScreenshot(req);
    if (!problem.isEmpty()) return fail(problem);
    QTextStream(stdout) << "wrote " << req.file << "\n";
    return 0;
  }

  poslab::ui::MainWindow window;
  if (parser.isSet(family) && !window.parameters()->setFamily(parser.value(family).toStdString()))
    return fail("unknown family '" + parser.value(family) + "'");
  for (const auto& [name, value] : sets)
    if (!window.parameters()->setValue(name.toStdString(), value))
      return fail("the family has no parameter '" + name + "'");
  window.showView(*chosenView);
  window.show();
  return app.exec();
}
