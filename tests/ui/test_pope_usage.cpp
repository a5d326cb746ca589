// The training panel's "Frequency usage" tab: a PoPE run that finishes shows one bar per frequency
// per layer (core's popeFrequencyUsage on the worker thread), the bars are the shares core
// computed, summing to 1, and the layer and head boxes redraw the same answer; a RoPE run beside
// it has one bar per rotary pair (D/2); an ALiBi run says why it has none, and a request made
// anyway comes back with core's message naming the family. With POSLAB_TRAINING_SHOTS=DIR the tab
// is saved as DIR/frequency-usage.png.
#include <QComboBox>
#include <QDir>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QtTest>

#include <qcustomplot.h>
#include <cmath>

#include "inspection_answers.h"
#include "panel_actions.h"
#include "tiny_setups.h"
#include "training/lag_response_view.h"
#include "training/pope_usage_view.h"
#include "training/training_panel.h"

using namespace poslab::ui;

namespace {
constexpr int kWaitMs = 60000;
}  // namespace

class TestPopeUsage : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void popeRunShowsItsFrequencyUsage() {
    TrainingPanel panel;
    panel.resize(1100, 760);
    panel.show();
    poslab::ExperimentSpec e = test::tinyIndirectSetup({"pope", "rope", "alibi"}, /*layers=*/2);
    e.base.run.steps = 20;
    test::loadExperiment(panel, e);
    PopeUsageView* view = panel.popeUsageView();
    QCOMPARE(panel.viewTabs()->tabText(panel.viewTabs()->indexOf(view)),
             QString("Frequency usage"));
    QCOMPARE(panel.viewTabs()->indexOf(view),
             panel.viewTabs()->indexOf(panel.lagResponseView()) + 1);
    QVERIFY(!view->measureButton()->isEnabled());  // no run yet
    test::clickButton(&panel, "playButton");
    QTRY_VERIFY_WITH_TIMEOUT(panel.allFinished(), kWaitMs);
    // The tab shows the PoPE run whatever the runs' order.
    auto* runBox = view->findChild<QComboBox*>("popeUsageRun");
    QCOMPARE(runBox->currentText(), QString("pope"));
    QVERIFY(view->measurable());
    const int popeRun = view->run(), ropeRun = runBox->findText("rope"),
              alibiRun = runBox->findText("alibi");
    QVERIFY(ropeRun >= 0 && alibiRun >= 0);
    QCOMPARE(view->length(), 12LL);
    // The run's end measures once by itself.
    QTRY_COMPARE_WITH_TIMEOUT(view->shown().step, 20LL, kWaitMs);
    const TrainingPopeUsage& u = view->shown();
    QVERIFY2(u.error.isEmpty(), qPrintable(u.error));
    QCOMPARE(u.usage.length, 12LL);
    QCOMPARE(u.usage.sequences, PopeUsageView::kSequences);
    QCOMPARE(u.usage.headDim, 16LL);  // d_model 32, 2 heads
    QCOMPARE(u.usage.layerUsage.size(), size_t(2));
    QCOMPARE(view->layerBox()->count(), 2);
    QCOMPARE(view->headBox()->count(), 3);  // mean, 1, 2
    // The bars are core's head-mean shares of layer 1, one per frequency, summing to 1.
    auto bars = view->bars();
    QCOMPARE(bars.size(), size_t(16));
    QVERIFY2(view->plot()->xAxis->label().contains("θ_c = base^(−c/D)"),
             qPrintable(view->plot()->xAxis->label()));
    double total = 0;
    for (size_t c = 0; c < bars.size(); ++c) {
      QCOMPARE(bars[c].first, double(c));
      QCOMPARE(bars[c].second, u.usage.layerUsage[0][c]);
      total += bars[c].second;
    }
    QVERIFY(std::abs(total - 1) < 1e-9);
    QVERIFY2(view->infoText().contains("pope at step 20: T = 12, 16 sequences"),
             qPrintable(view->infoText()));
    QVERIFY2(view->infoText().contains(
                 "Layer 1: " + QString::number(u.usage.layerEffectiveFrequencies[0], 'g', 3) +
                 " effective frequencies of 16"),
             qPrintable(view->infoText()));
    // Layer 2, head 2: the same answer redrawn, no new request.
    view->layerBox()->setCurrentIndex(1);
    view->headBox()->setCurrentIndex(2);
    bars = view->bars();
    QCOMPARE(bars.size(), size_t(16));
    for (size_t c = 0; c < bars.size(); ++c) QCOMPARE(bars[c].second, u.usage.usage[1][1][c]);
    QVERIFY(view->infoText().contains("head 2"));
    const QString dir = qEnvironmentVariable("POSLAB_TRAINING_SHOTS");
    if (!dir.isEmpty()) {
      panel.viewTabs()->setCurrentWidget(view);
      QCoreApplication::processEvents();
      QVERIFY(panel.grab().save(QDir(dir).filePath("frequency-usage.png")));
    }

    // The RoPE run, the paper's comparison: one bar per rotary pair, measured on Measure.
    runBox->setCurrentIndex(ropeRun);
    QVERIFY(view->measurable());
    QVERIFY(view->measureButton()->isEnabled());
    test::clickButton(view, "popeUsageMeasure");
    QTRY_VERIFY_WITH_TIMEOUT(view->shown().usage.family == "rope", kWaitMs);
    QVERIFY2(view->shown().error.isEmpty(), qPrintable(view->shown().error));
    view->layerBox()->setCurrentIndex(0);
    view->headBox()->setCurrentIndex(0);
    bars = view->bars();
    QCOMPARE(bars.size(), size_t(8));  // head size 16: 8 pairs
    // RoPE's schedule on the axis (PoPE's is base^(−c/D)), as the plots write formulas.
    QVERIFY2(view->plot()->xAxis->label().contains("θ_c = base^(−2c/D)"),
             qPrintable(view->plot()->xAxis->label()));
    QVERIFY(view->infoText().contains("effective frequencies of 8"));

    // The ALiBi run: nothing to measure, and core's refusal if asked anyway.
    runBox->setCurrentIndex(alibiRun);
    QVERIFY(!view->measurable());
    QVERIFY(!view->measureButton()->isEnabled());
    QVERIFY(view->plot()->isHidden());
    QVERIFY2(view->infoText().contains("this run's family is alibi"), qPrintable(view->infoText()));
    QSignalSpy spy(panel.run(alibiRun), &TrainingRun::inspected);
    panel.run(alibiRun)->inspect(inspectionRequest(kPopeUsageInspection, PopeUsageArgs{12, 2}));
    const auto refused = test::awaitAnswer<TrainingPopeUsage>(spy, kPopeUsageInspection, kWaitMs);
    QVERIFY(refused.has_value());
    QVERIFY2(refused->error.contains("this run's family is alibi"), qPrintable(refused->error));
    QVERIFY(refused->usage.usage.empty());

    // Reset: the usage belonged to the model before it.
    runBox->setCurrentIndex(popeRun);
    test::clickButton(&panel, "resetButton");
    QVERIFY(view->bars().empty());
    QCOMPARE(view->shown().step, 0LL);
    QVERIFY2(view->infoText().contains("press Measure"), qPrintable(view->infoText()));
  }
};

QTEST_MAIN(TestPopeUsage)
#include "test_pope_usage.moc"
