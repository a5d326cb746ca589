// The training panel's "Key distance" tab: a kv-retrieval compare run shows, per run and
// evaluation length, the accuracy against the key distance that core's evaluation reported
// (EvalResult::accuracyByDistance) at the distance points of MATH 3.3 (64, 128, ... below T - 2);
// runs of a task without distances, or with evaluation lengths too short for one, say why. Every
// view tab of the training panel, this one included, shows its title at the window's default size.
// With POSLAB_TRAINING_SHOTS=DIR the tab is saved as DIR/key-distance.png (every length) and
// DIR/key-distance-T200.png (one length).
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QSettings>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QtTest>

#include <qcustomplot.h>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "app_shell.h"
#include "main_window.h"
#include "panel_actions.h"
#include "tiny_setups.h"
#include "training/distance_accuracy_view.h"
#include "training/training_panel.h"

using namespace poslab::ui;

namespace {
constexpr int kWaitMs = 60000;

// kv-retrieval with 2 pairs of 8 keys and 8 values, trained at T = 16 and evaluated at 16 (no
// distance below T - 2 = 14), 100 (d = 64) and 200 (d = 64, 128); 1 layer, 200 steps.
poslab::ExperimentSpec tinyRetrieval(std::vector<std::string> families,
                                     std::vector<long long> evalLengths = {16, 100, 200}) {
  poslab::ExperimentSpec e =
      test::tinyIndirectSetup(std::move(families), 1, 0, "tiny-kv-retrieval");
  e.base.task.id = "kv-retrieval";
  e.base.task.options = {{"pairs", 2}, {"keys", 8}, {"values", 8}};
  e.base.task.trainLength = 16;
  e.base.run.evalLengths = std::move(evalLengths);
  e.base.run.steps = 200;
  e.base.run.evalEvery = 100;
  e.base.run.evalSequences = 16;
  return e;
}

// A graph's points as (key, value) pairs, in key order.
std::vector<std::pair<double, double>> points(const QCPGraph* g) {
  std::vector<std::pair<double, double>> out;
  for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
    out.emplace_back(it->key, it->value);
  return out;
}
}  // namespace

class TestDistanceAccuracy : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // no kept splitter sizes from an earlier run
    QCoreApplication::setOrganizationName("poslab-tests");
    QCoreApplication::setApplicationName("test_distance_accuracy");
    QSettings().clear();
  }

  // Seven view tabs at the window's default size (1400 x 860): no scroll arrows, no title cut.
  void everyViewTabShowsAtTheDefaultWindowSize() {
    AppShell shell;
    MainWindow& w = shell.window();
    w.show();
    w.showView(WindowView::Training);
    QCoreApplication::processEvents();
    QTabWidget* tabs = w.trainingPanel()->viewTabs();
    QCOMPARE(tabs->count(), 7);
    QVERIFY2(tabs->tabBar()->sizeHint().width() <= tabs->width(),
             qPrintable(QString("tab titles need %1 px, the tabs have %2")
                            .arg(tabs->tabBar()->sizeHint().width())
                            .arg(tabs->width())));
  }

  void kvRetrievalRunsShowAccuracyByDistance() {
    TrainingPanel panel;
    panel.resize(1100, 760);
    panel.show();
    DistanceAccuracyView* view = panel.distanceView();
    QCOMPARE(panel.viewTabs()->tabText(panel.viewTabs()->indexOf(view)), QString("Key distance"));
    QVERIFY(view->infoText().contains("kv-retrieval"));  // no run yet: says what to start
    test::loadExperiment(panel, tinyRetrieval({"rope", "alibi"}));
    test::clickButton(&panel, "playButton");
    QCOMPARE(panel.runCount(), 2);
    // Lines for the lengths that reach a distance point: 100 and 200, not 16.
    QCOMPARE(view->lengths(), (std::vector<long long>{100, 200}));
    QVERIFY(!view->plot()->isHidden());
    QVERIFY(view->infoText().contains("first evaluation"));
    QTRY_VERIFY_WITH_TIMEOUT(panel.allFinished(), kWaitMs);
    QCoreApplication::processEvents();
    panel.replot();

    // MATH 3.3: the distance points 64, 128, ... below T - 2.
    const std::map<long long, std::vector<double>> expectedDistances = {{100, {64}},
                                                                        {200, {64, 128}}};
    for (int run = 0; run < panel.runCount(); ++run) {
      const auto& eval = panel.latestEval(run);
      QCOMPARE(eval.size(), size_t(3));
      QVERIFY(eval[0].accuracyByDistance.empty());  // T = 16: no distance
      const auto& curves = view->curves(run);
      QCOMPARE(curves.size(), size_t(2));  // one line per evaluation length with distances
      for (const auto& c : curves) {
        const poslab::EvalResult* e = nullptr;
        for (const auto& r : eval)
          if (r.length == c.length) e = &r;
        QVERIFY(e);
        // Exactly what core reported, at the task's distances.
        std::vector<std::pair<double, double>> reported;
        std::vector<double> distances;
        for (const auto& [d, a] : e->accuracyByDistance) {
          reported.emplace_back(double(d), a);
          distances.push_back(double(d));
          QVERIFY(a >= 0 && a <= 1);
        }
        QCOMPARE(distances, expectedDistances.at(c.length));
        QCOMPARE(points(c.graph), reported);
        QCOMPARE(
            c.graph->name(),
            QString("%1, T = %2").arg(QString::fromStdString(panel.runFamily(run))).arg(c.length));
        QVERIFY(c.graph->visible());
      }
      // One colour per run (as the other plots); a dash per length, the same in every run.
      QCOMPARE(curves[0].graph->pen().color(), curves[1].graph->pen().color());
      QVERIFY(curves[0].graph->pen().style() != curves[1].graph->pen().style());
      QCOMPARE(curves[1].graph->pen().style(), view->curves(0)[1].graph->pen().style());
    }
    QVERIFY(view->curves(0)[0].graph->pen().color() != view->curves(1)[0].graph->pen().color());
    QCOMPARE(view->plot()->legend->itemCount(), 4);
    QVERIFY(view->infoText().contains("T = 200: d = 64, 128"));
    QVERIFY(view->plot()->xAxis->label().startsWith("key distance d"));
    const QString dir = qEnvironmentVariable("POSLAB_TRAINING_SHOTS");
    panel.viewTabs()->setCurrentWidget(view);
    QCoreApplication::processEvents();
    if (!dir.isEmpty()) QVERIFY(panel.grab().save(QDir(dir).filePath("key-distance.png")));

    // One length: only its lines, and only they in the legend.
    QVERIFY(view->setLength(200));
    QCOMPARE(view->findChild<QComboBox*>("distanceLength")->currentText(), QString("T = 200"));
    for (int run = 0; run < 2; ++run) {
      QVERIFY(!view->curves(run)[0].graph->visible());
      QVERIFY(view->curves(run)[1].graph->visible());
    }
    QCOMPARE(view->plot()->legend->itemCount(), 2);
    QVERIFY(!view->setLength(16));  // no distance at 16
    panel.replot();
    if (!dir.isEmpty()) QVERIFY(panel.grab().save(QDir(dir).filePath("key-distance-T200.png")));
    QVERIFY(view->setLength(-1));
    QCOMPARE(view->plot()->legend->itemCount(), 4);

    // Reset: the lines empty until the next evaluation.
    test::clickButton(&panel, "resetButton");
    QTRY_COMPARE_WITH_TIMEOUT(panel.stepCount(), 0LL, kWaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(view->curves(0)[1].graph->dataCount(), 0, kWaitMs);
    QVERIFY(view->infoText().contains("first evaluation"));
  }

  // Without distances there is no plot, and the view says why: another task, or evaluation
  // lengths that stop short of the first distance point (64 needs T > 66).
  void withoutDistancesTheViewSaysWhy() {
    TrainingPanel panel;
    panel.show();
    DistanceAccuracyView* view = panel.distanceView();
    test::loadExperiment(panel, test::tinyIndirectSetup({"rope"}));
    test::clickButton(&panel, "stepButton");
    QTRY_COMPARE_WITH_TIMEOUT(panel.stepCount(), 1LL, kWaitMs);
    QVERIFY(view->lengths().empty());
    QVERIFY(view->plot()->isHidden());
    QVERIFY(!view->findChild<QComboBox*>("distanceLength")->isEnabled());
    QVERIFY2(
        view->infoText().contains("kv-retrieval") && view->infoText().contains("indirect-indexing"),
        qPrintable(view->infoText()));

    test::loadExperiment(panel, tinyRetrieval({"rope"}, {16, 32}));
    test::clickButton(&panel, "stepButton");
    QTRY_COMPARE_WITH_TIMEOUT(panel.stepCount(), 1LL, kWaitMs);
    QVERIFY(view->plot()->isHidden());
    QVERIFY2(view->infoText().contains("Add an evaluation length above 66"),
             qPrintable(view->infoText()));
  }
};

QTEST_MAIN(TestDistanceAccuracy)
#include "test_distance_accuracy.moc"
