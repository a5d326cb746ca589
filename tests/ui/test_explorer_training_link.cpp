// Issue 31, item 6: the explorer and the training tab share one state. Explorer -> training ->
// explorer, as a user does it through the Training menu: a γ set in the explorer is the run's
// initial γ (read back from the run's own reset snapshot, not from the setup we gave), and the
// learned γ (the snapshot's mean over layers and heads, computed here from the run's values) is
// what the explorer shows afterwards. Headless; POSLAB_TRAINING_SHOTS=DIR saves screenshots.
#include <QAction>
#include <QDir>
#include <QSignalSpy>
#include <QtTest>

#include <cmath>
#include <numeric>

#include "app_shell.h"
#include "explorer/explorer_controller.h"
#include "explorer/parameter_panel.h"
#include "main_window.h"
#include "panel_actions.h"
#include "session/explorer_training_link.h"
#include "session/session_state.h"
#include "tiny_setups.h"
#include "training/training_panel.h"

using namespace poslab::ui;

namespace {
constexpr int kWaitMs = 60000;
constexpr double kGamma = 0.02;  // unlike the family's default (1e-4) and its trained init

double mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

void shoot(QWidget& w, const char* name) {
  const QString dir = qEnvironmentVariable("POSLAB_TRAINING_SHOTS");
  if (dir.isEmpty()) return;
  QCoreApplication::processEvents();
  QVERIFY(w.grab().save(QDir(dir).filePath(name)));
}
}  // namespace

class TestExplorerTrainingLink : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void explorerToTrainingToExplorer() {
    AppShell shell;
    MainWindow& w = shell.window();
    w.show();
    TrainingPanel* panel = w.trainingPanel();
    test::loadExperiment(*panel, test::tinyIndirectSetup({"rope"}));
    ParameterPanel* explorer = w.parameters();
    QVERIFY(explorer->setFamily("jordan-stabilized"));
    QVERIFY(explorer->setValue("gamma", kGamma));
    QCOMPARE(explorer->values().at("gamma"), kGamma);

    // Explorer -> training.
    QVERIFY(shell.actions().trainFromHere->isEnabled());
    shell.actions().trainFromHere->trigger();
    QCOMPARE(w.currentView(), WindowView::Training);
    const poslab::ExperimentSpec setup = panel->experiment();
    QCOMPARE(setup.families, std::vector<std::string>{"jordan-stabilized"});
    QCOMPARE(setup.familyParams.at("jordan-stabilized").at("gamma"), kGamma);
    QVERIFY(!setup.familyParams.at("jordan-stabilized").count("head_dim"));  // the model's
    // The setup the form shows is the setup a session keeps.
    QCOMPARE(captureSession(shell.sessionParts()).training.familyParams, setup.familyParams);

    // The run's initial γ: Step builds the run, Reset gives its fresh parameters at step 0.
    test::clickButton(panel, "stepButton");
    QTRY_VERIFY_WITH_TIMEOUT(panel->runCount() == 1 && panel->runStep(0) >= 1, kWaitMs);
    QSignalSpy snapshots(panel->controller(), &TrainingController::snapshotApplied);
    test::clickButton(panel, "resetButton");
    std::vector<double> initial;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
          for (const auto& args : snapshots) {
            const auto s = args.at(1).value<poslab::Snapshot>();
            if (s.event == poslab::SnapshotEvent::Reset && s.position.count("gamma"))
              initial = s.position.at("gamma");
          }
          return !initial.empty();
        }(),
        kWaitMs);
    for (double g : initial)
      QVERIFY2(std::abs(g - kGamma) <= 1e-6 * kGamma, qPrintable(QString::number(g)));

    // Train a little, then training -> explorer.
    for (long long s = 1; s <= 12; ++s) {
      test::clickButton(panel, "stepButton");
      QTRY_VERIFY_WITH_TIMEOUT(panel->runStep(0) >= s, kWaitMs);
    }
    shoot(w, "link-training.png");
    const std::vector<double> learned = panel->lastSnapshot(0).position.at("gamma");
    const double learnedMean = mean(learned);
    QVERIFY2(std::abs(learnedMean - kGamma) > 1e-5,
             "γ did not move: the check below could not fail");
    QVERIFY(shell.actions().showInExplorer->isEnabled());
    shell.actions().showInExplorer->trigger();
    QCOMPARE(w.currentView(), WindowView::Kernel);
    QCOMPARE(explorer->familyId(), std::string("jordan-stabilized"));
    const double shown = explorer->values().at("gamma");
    QVERIFY2(std::abs(shown - learnedMean) <= 1e-6 * std::abs(learnedMean),
             qPrintable(QString("explorer %1, learned mean %2").arg(shown).arg(learnedMean)));
    // A parameter the run does not learn keeps the value it started from.
    QCOMPARE(explorer->values().at("omega"),
             setup.familyParams.at("jordan-stabilized").at("omega"));
    ExplorerController* c = shell.explorer();
    QTRY_VERIFY_WITH_TIMEOUT(!c->busy() && c->isUpToDate(ExplorerView::Kernel), kWaitMs);
    shoot(w, "link-explorer.png");
  }

  // The mapping itself: mean over what a learned value holds, clamped to the explorer's range,
  // the start's values for the rest, defaults for what neither gives.
  void learnedValuesOverTheStart() {
    std::vector<std::string> clamped;
    const auto v = explorerValuesFromRun("jordan-stabilized", {{"eta", 0.05}},
                                         {{"gamma", {0.01, 0.03}}, {"eta", {-5.0}}}, &clamped);
    QCOMPARE(v.at("gamma"), 0.02);
    QCOMPARE(clamped, std::vector<std::string>{"eta"});
    QVERIFY(v.at("eta") > -5.0);  // the range's lower edge
    const auto spec =
        trainFromExplorer(poslab::ExperimentSpec{}, "rope", {{"base", 500.0}, {"head_dim", 8.0}});
    QCOMPARE(spec.families, std::vector<std::string>{"rope"});
    QCOMPARE(spec.familyParams.at("rope"), (std::map<std::string, double>{{"base", 500.0}}));
  }
};

QTEST_MAIN(TestExplorerTrainingLink)
#include "test_explorer_training_link.moc"
