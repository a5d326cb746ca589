// GUI responsiveness (issue #4 section 5): slider-change-to-repaint latency of the explorer's
// heaviest plots, in the real window, offscreen. For each plot it moves the gamma slider of
// jordan-exact N times and times each change from QSlider::setValue to the end of the plot's
// replot (QCustomPlot::afterReplot, emitted inside the view's showResult, just before the
// controller reports the view settled), and the final replot alone. It then splits the time into
// its parts by calling them alone: the core computation (computeExplorer on a thread set up as the
// explorer's worker) and the view's showResult (copying the data into the plot plus replot).
//
//   poslab_bench_gui [--changes N] [--gap-ms MS]
//
// Goals (issue #4): p95 < 16 ms for the kernel plot at 32,768 lags and the norms plot at 32,768
// positions, p95 < 50 ms for the attention map at 512 x 512.
#include <qcustomplot.h>
#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QSlider>
#include <QTextStream>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "app_shell.h"
#include "bridge/explorer_compute.h"
#include "explorer/attention_view.h"
#include "explorer/diagnostics_view.h"
#include "explorer/explorer_controller.h"
#include "explorer/kernel_view.h"
#include "explorer/norms_view.h"
#include "explorer/parameter_panel.h"
#include "explorer/probe_view.h"
#include "main_window.h"
#include "util/threads.h"

using namespace poslab::ui;
using Clock = std::chrono::steady_clock;

namespace {
constexpr int kWarmup = 3;          // changes before timing (first compute, caches, fonts)
constexpr int kTimeoutMs = 20000;   // one change that takes longer is a failure
constexpr int kDefaultGapMs = 100;  // idle time between changes: each one is a fresh change

double ms(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

struct Stats {
  double median = 0, p95 = 0, max = 0;
};

Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  Stats s;
  if (v.empty()) return s;
  s.median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  const size_t i95 = static_cast<size_t>(std::ceil(0.95 * static_cast<double>(v.size()))) - 1;
  s.p95 = v[std::min(i95, v.size() - 1)];
  s.max = v.back();
  return s;
}

std::string cpuModel() {
  QFile f("/proc/cpuinfo");
  if (!f.open(QIODevice::ReadOnly)) return "unknown CPU";
  int cores = 0;
  QString model;
  for (const QByteArray& line : f.readAll().split('\n')) {
    if (line.startsWith("model name")) {
      ++cores;
      if (model.isEmpty()) model = QString::fromUtf8(line.mid(line.indexOf(':') + 1)).trimmed();
    }
  }
  return QString("%1, %2 logical cores").arg(model).arg(cores).toStdString();
}

struct Case {
  const char* name;
  WindowView view;
  double goalP95Ms;
  std::function<void(MainWindow&)> configure;  // the plot's size setting
  std::function<QCustomPlot*(MainWindow&)> plot;
  std::function<void(MainWindow&, const ExplorerResult&)> show;
};

// Waits in the event loop until `done` or the timeout; false on timeout.
bool spinUntil(const std::function<bool()>& done, int timeoutMs) {
  QElapsedTimer t;
  t.start();
  while (!done()) {
    if (t.elapsed() > timeoutMs) return false;
    QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 5);
  }
  return true;
}

int runCase(AppShell& shell, const Case& c, int changes, int gapMs) {
  MainWindow& w = shell.window();
  ExplorerController* ctl = shell.explorer();
  c.configure(w);
  w.showView(c.view);
  const auto view = static_cast<ExplorerView>(c.view);
  if (!spinUntil([&] { return !ctl->busy() && ctl->isUpToDate(view); }, kTimeoutMs)) {
    std::fprintf(stderr, "%s: the first computation did not finish\n", c.name);
    return 1;
  }
  QCustomPlot* plot = c.plot(w);
  auto* slider = w.parameters()->findChild<QSlider*>("slider_gamma");
  Clock::time_point replotStart, replotted;
  bool settled = false;
  QObject::connect(plot, &QCustomPlot::beforeReplot, plot, [&] { replotStart = Clock::now(); });
  QObject::connect(plot, &QCustomPlot::afterReplot, plot, [&] { replotted = Clock::now(); });
  auto conn =
      QObject::connect(ctl, &ExplorerController::settled, plot, [&](ExplorerView v, bool ok) {
        if (v == view) settled = true;
        if (!ok) std::fprintf(stderr, "%s: %s\n", c.name, qPrintable(ctl->lastError()));
      });

  std::vector<double> toReplot, replotPart;
  for (int k = 0; k < kWarmup + changes; ++k) {
    // Distinct log-slider positions: gamma from about 3e-4 to 3e-3.
    const int position = 450 + (k % 2 ? 1 : -1) * (10 + 2 * k);
    settled = false;
    const Clock::time_point t0 = Clock::now();
    slider->setValue(position);
    if (!spinUntil([&] { return settled; }, kTimeoutMs)) {
      std::fprintf(stderr, "%s: change %d did not settle\n", c.name, k);
      return 1;
    }
    if (k >= kWarmup) {
      toReplot.push_back(ms(replotted - t0));
      replotPart.push_back(ms(replotted - replotStart));
    }
    QElapsedTimer gap;
    gap.start();
    spinUntil([&] { return gap.elapsed() >= gapMs; }, gapMs + 1000);
  }
  QObject::disconnect(conn);

  // The parts, alone: core's computation, then the view taking the result (data copy + replot).
  ExplorerRequest req;
  req.view = view;
  req.family = w.parameters()->familyId();
  req.params = w.parameters()->values();
  req.overrides = w.parameters()->overrides();
  w.kernelView()->fillRequest(req);
  w.attentionView()->fillRequest(req);
  w.normsView()->fillRequest(req);
  w.probeView()->fillRequest(req);
  w.diagnosticsView()->fillRequest(req);
  std::vector<double> compute, show, replotOnly;
  ExplorerResult result;
  // As the explorer's worker runs it: its own thread, one intra-op thread.
  std::thread([&] {
    useOneIntraOpThread();
    for (int k = 0; k < std::min(changes, 20); ++k) {
      const auto t0 = Clock::now();
      result = computeExplorer(req);
      compute.push_back(ms(Clock::now() - t0));
    }
  }).join();
  for (int k = 0; k < std::min(changes, 20); ++k) {
    auto t0 = Clock::now();
    c.show(w, result);
    show.push_back(ms(Clock::now() - t0));
    t0 = Clock::now();
    plot->replot();
    replotOnly.push_back(ms(Clock::now() - t0));
  }

  const Stats r = stats(toReplot), p = stats(replotPart), cs = stats(compute), ss = stats(show),
              rs = stats(replotOnly);
  std::printf(
      "%-28s n=%-3zu median %7.2f ms  p95 %7.2f ms  max %7.2f ms  goal p95 < %2.0f ms: %s\n",
      c.name, toReplot.size(), r.median, r.p95, r.max, c.goalP95Ms,
      r.p95 < c.goalP95Ms ? "met" : "MISSED");
  std::printf("%-28s of which the final replot: median %7.2f ms  p95 %7.2f ms\n", "", p.median,
              p.p95);
  std::printf(
      "%-28s parts alone (medians): compute %.2f ms (worker-like thread), showResult "
      "%.2f ms (of which replot %.2f ms)\n",
      "", cs.median, ss.median, rs.median);
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  int changes = 50, gapMs = kDefaultGapMs;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--changes") && i + 1 < argc)
      changes = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--gap-ms") && i + 1 < argc)
      gapMs = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf("usage: poslab_bench_gui [--changes N] [--gap-ms MS]\n");
      return 0;
    } else {
      std::fprintf(stderr, "poslab_bench_gui: unknown argument '%s' (see --help)\n", argv[i]);
      return 2;
    }
  }
  if (changes < 1) {
    std::fprintf(stderr, "poslab_bench_gui: --changes must be at least 1\n");
    return 2;
  }
  QApplication app(argc, argv);
  const int threads = poslab::configureThreads();  // as the app does at startup
  AppShell shell;
  MainWindow& w = shell.window();
  w.resize(1400, 860);
  w.show();
  if (!w.parameters()->setFamily("jordan-exact")) return 1;
  std::printf(
      "PosLab GUI latency: %s, %d torch threads, Qt %s, platform %s, window 1400x860, "
      "%d changes per plot, %d ms apart, family jordan-exact, gamma slider\n",
      cpuModel().c_str(), threads, qVersion(), qPrintable(QGuiApplication::platformName()), changes,
      gapMs);
  auto pick = [](MainWindow& w, const char* name, const char* text) {
    auto* box = w.findChild<QComboBox*>(name);
    box->setCurrentText(text);
  };
  const std::vector<Case> cases = {
      {"kernel, 32768 lags", WindowView::Kernel, 16,
       [&](MainWindow& w) { pick(w, "lagCount", "32768"); },
       [](MainWindow& w) { return w.kernelView()->plot(); },
       [](MainWindow& w, const ExplorerResult& r) { w.kernelView()->showResult(r); }},
      {"attention map, 512 x 512", WindowView::Attention, 50,
       [&](MainWindow& w) { pick(w, "attentionT", "512"); },
       [](MainWindow& w) { return w.attentionView()->plot(); },
       [](MainWindow& w, const ExplorerResult& r) { w.attentionView()->showResult(r); }},
      {"norms, 32768 positions", WindowView::Norms, 16,
       [&](MainWindow& w) { pick(w, "maxPos", "32768"); },
       [](MainWindow& w) { return w.normsView()->plot(); },
       [](MainWindow& w, const ExplorerResult& r) { w.normsView()->showResult(r); }},
  };
  int failed = 0;
  for (const Case& c : cases) failed += runCase(shell, c, changes, gapMs);
  return failed ? 1 : 0;
}
