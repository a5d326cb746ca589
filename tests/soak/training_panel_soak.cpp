// Soak of the GUI's training panel (issue #17 section 6), headless (QT_QPA_PLATFORM=offscreen),
// driven only through its public interface: N cycles (default 1000) of
//   play (until a step is shown) -> pause -> step once -> reset -> stop
// (stop ends and drops the runs: their workers stop and join; the setup stays, so the next Play
// builds them again), and every 100 cycles the panel itself is destroyed and rebuilt. Two families
// train side by side. No crash, no hang (every wait is bounded), no leak (LeakSanitizer under
// scripts/asan.sh), flat memory (soak_support.h). The ordinary ctest runs a short version
// (soak.training_panel: 30 cycles).
//   poslab_training_panel_soak [--cycles N]
#include <QApplication>
#include <QString>

#include <cstdio>
#include <memory>
#include <string>

#include "soak_support.h"
#include "tiny_setups.h"
#include "training/training_panel.h"

int main(int argc, char** argv) {
  using namespace poslab;
  using soak::waitFor;
  qputenv("QT_QPA_PLATFORM",
          qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
  QApplication app(argc, argv);
  const int cycles = soak::cyclesFromArgs(argc, argv, 1000);
  const ExperimentSpec setup = ui::test::tinyIndirectSetup({"rope", "pope"}, /*layers=*/1);
  const auto events = [] { QApplication::processEvents(QEventLoop::AllEvents, 5); };

  std::unique_ptr<ui::TrainingPanel> panel;
  const auto load = [&](int cycle) {
    QString error;
    if (!panel->setExperiment(setup, &error))
      soak::fail("cycle " + std::to_string(cycle) + ": setExperiment: " + error.toStdString());
  };
  soak::MemoryTrack memory(cycles);
  for (int cycle = 1; cycle <= cycles; ++cycle) {
    if (!panel || cycle % 100 == 1) {
      panel = std::make_unique<ui::TrainingPanel>();
      panel->resize(1200, 800);
      panel->show();
      load(cycle);
    }
    panel->play();
    waitFor([&] { return panel->stepCount() >= 1; }, "the first step after Play", cycle, events);
    panel->pause();
    waitFor([&] { return panel->runStateText() == "paused"; }, "Pause", cycle, events);
    const long long before = panel->stepCount();
    panel->stepOnce();
    waitFor([&] { return panel->stepCount() >= before + 1; }, "Step", cycle, events);
    panel->reset();
    waitFor([&] { return panel->stepCount() == 0; }, "Reset", cycle, events);
    panel->stop();  // the runs are dropped and their workers joined
    events();
    if (panel->runCount() != 0) soak::fail("cycle " + std::to_string(cycle) + ": runs kept");
    if (cycle % 100 == 0) panel.reset();  // the panel's own teardown, every 100 cycles
    memory.afterCycle(cycle);
    if (cycle % 100 == 0) {
      std::printf("cycle %d: %s\n", cycle, soak::MemoryTrack::nowText().c_str());
      std::fflush(stdout);
    }
  }
  panel.reset();
  memory.check("training panel soak");
  std::printf("training panel soak: %d cycles passed\n", cycles);
  return 0;
}
