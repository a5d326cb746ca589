// Issue 31, item 6: the explorer and the training tab share one state. Explorer -> training ->
// explorer, as a user does it through the Training menu: a γ set in the explorer is the run's
// initial γ (read back from the run's own reset snapshot, not from the setup we gave), and the
// learned γ (the snapshot's mean over layers and heads, or one head's, computed here from the
// run's values) is what the explorer shows afterwards. POSLAB_TRAINING_SHOTS=DIR saves
// screenshots.
#include <QAction>
#include <QCheckBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <cmath>
#include <numeric>

#include "app_shell.h"
#include "explorer/explorer_controller.h"
#include "explorer/parameter_panel.h"
#include "main_window.h"
#include "menus/file_menu.h"
#include "panel_actions.h"
#include "session/explorer_training_link.h"
#include "session/session_state.h"
#include "tiny_setups.h"
#include "training/explorer_link_row.h"
#include "training/family_start_form.h"
#include "training/training_panel.h"
#include "training/training_setup_form.h"

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
    poslab::ExperimentSpec tiny = test::tinyIndirectSetup({"rope"});
    tiny.base.optim.warmup = 0;            // full lr from the first step:
    tiny.base.optim.positionLrScale = 10;  // γ moves measurably in a dozen steps
    test::loadExperiment(*panel, tiny);
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
    QCOMPARE(panel->explorerLink()->head(), -1);  // the mean over heads by default
    shell.actions().showInExplorer->trigger();
    QCOMPARE(w.currentView(), WindowView::Kernel);
    QCOMPARE(explorer->familyId(), std::string("jordan-stabilized"));
    const double shown = explorer->values().at("gamma");
    QVERIFY2(std::abs(shown - learnedMean) <= 1e-12 * std::abs(learnedMean),
             qPrintable(QString("explorer %1, learned mean %2").arg(shown).arg(learnedMean)));
    // A parameter the run does not learn keeps the value it started from.
    QCOMPARE(explorer->values().at("omega"),
             setup.familyParams.at("jordan-stabilized").at("omega"));
    ExplorerController* c = shell.explorer();
    QTRY_VERIFY_WITH_TIMEOUT(!c->busy() && c->isUpToDate(ExplorerView::Kernel), kWaitMs);
    shoot(w, "link-explorer.png");

    // One head: the second half of the (H = 2, blocks) values, head by head.
    w.showView(WindowView::Training);
    QVERIFY(panel->explorerLink()->setHead(1));
    shell.actions().showInExplorer->trigger();
    const std::vector<double> head2(learned.begin() + long(learned.size() / 2), learned.end());
    const double shownHead = explorer->values().at("gamma");
    QVERIFY2(std::abs(shownHead - mean(head2)) <= 1e-12 * std::abs(mean(head2)),
             qPrintable(QString("explorer %1, head 2 %2").arg(shownHead).arg(mean(head2))));
    QVERIFY(std::abs(mean(head2) - learnedMean) > 1e-9);  // the heads learned differently
    // Both shows are undo steps: the first undo gives the mean back.
    shell.undoStack()->undo();
    QCOMPARE(explorer->values().at("gamma"), shown);
  }

  // Issue 31, item 6: a session keeps what the runs start from, as the training form shows it
  // (a family parameter typed into the form, a pin checked there) beside the explorer's values.
  void familyStartRoundTrip() {
    QTemporaryDir dir;
    AppShell shell;
    MainWindow& w = shell.window();
    QVERIFY(w.parameters()->setFamily("jordan-exact"));
    QVERIFY(w.parameters()->setValue("gamma", 0.0123));
    poslab::ExperimentSpec e = test::tinyIndirectSetup({"jordan-stabilized"});
    e.familyParams["pope"] = {{"delta", -0.5}};
    e.families = {"jordan-stabilized"};  // pins apply to every family: one that learns η
    QString error;
    QVERIFY2(w.trainingPanel()->setExperiment(e, &error), qPrintable(error));
    FamilyStartForm* start = w.trainingPanel()->setupForm()->familyStart();
    QDoubleSpinBox* gamma = start->valueBox("jordan-stabilized", "gamma");
    QVERIFY(gamma);
    QVERIFY(!start->valueBox("pope", "delta"));  // not checked: its value is kept, not shown
    QCOMPARE(gamma->value(), 1e-4);              // the family's trained start (MATH 2.3), not set
    QVERIFY(gamma->font().italic());
    QVERIFY(!start->valueBox("jordan-stabilized", "head_dim"));  // the model's
    QVERIFY(start->pinBox("gamma") && start->pinBox("eta") && !start->pinBox("delta"));
    QVERIFY(!start->pinBox("gates"));  // pj-bias's, not checked
    gamma->setValue(0.0375);           // as a user typing it
    start->pinBox("eta")->setChecked(true);
    QVERIFY(!gamma->font().italic());
    const poslab::ExperimentSpec shown = w.trainingPanel()->experiment();
    QCOMPARE(shown.familyParams.at("jordan-stabilized"),
             (std::map<std::string, double>{{"gamma", 0.0375}}));
    QCOMPARE(shown.familyParams.at("pope").at("delta"), -0.5);  // the setup's, kept
    QCOMPARE(shown.base.model.pinned, std::vector<std::string>{"eta"});

    const QString file = dir.filePath("start.poslab");
    QVERIFY(shell.sessions()->saveFile(file));
    QVERIFY(w.parameters()->setFamily("rope"));
    poslab::ExperimentSpec other;
    other.families = {"rope"};
    other.base.task.id = "kernel-lm";
    QVERIFY(w.trainingPanel()->setExperiment(other, &error));
    QVERIFY(!start->valueBox("jordan-stabilized", "gamma"));
    QVERIFY2(shell.sessions()->openFile(file), qPrintable(shell.sessions()->lastError()));

    QCOMPARE(w.parameters()->familyId(), std::string("jordan-exact"));
    QCOMPARE(w.parameters()->values().at("gamma"), 0.0123);
    QCOMPARE(start->valueBox("jordan-stabilized", "gamma")->value(), 0.0375);
    QVERIFY(!start->valueBox("jordan-stabilized", "gamma")->font().italic());
    QVERIFY(start->valueBox("jordan-stabilized", "eta")->font().italic());
    QVERIFY(start->pinBox("eta")->isChecked());
    QVERIFY(!start->pinBox("gamma")->isChecked());
    const poslab::ExperimentSpec back = w.trainingPanel()->experiment();
    QCOMPARE(back.familyParams, shown.familyParams);
    QCOMPARE(back.base.model.pinned, std::vector<std::string>{"eta"});
    // In the file, in the documented format.
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const nlohmann::json j = nlohmann::json::parse(f.readAll().toStdString());
    QCOMPARE(j.at("training").at("family_params").at("jordan-stabilized").at("gamma").get<double>(),
             0.0375);
    QCOMPARE(j.at("training").at("config").at("model").at("pinned"), nlohmann::json({"eta"}));
  }

  // Train from here leaves the parameters the model sets from its size to the model.
  void modelSizedParametersStayWithTheModel() {
    const auto spec =
        trainFromExplorer(poslab::ExperimentSpec{}, "rope", {{"base", 500.0}, {"head_dim", 8.0}});
    QCOMPARE(spec.families, std::vector<std::string>{"rope"});
    QCOMPARE(spec.familyParams.at("rope"), (std::map<std::string, double>{{"base", 500.0}}));
  }
};

QTEST_MAIN(TestExplorerTrainingLink)
#include "test_explorer_training_link.moc"
