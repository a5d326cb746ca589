// The training panel's "Learned kernel" tab: after a short kernel-lm run the view shows the
// model's lag response (core's measureLagResponse on the worker thread) next to the task's kernel
// K(d) = (d/L) cos(omega d) / ||K|| (mixed_raw), with the CLI's cosines; a run of another task says
// why there is nothing to measure; errors come back as text, never as an exception across threads.
// With POSLAB_TRAINING_SHOTS=DIR the tab is saved as DIR/learned-kernel.png.
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QMutex>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QtTest>

#include <qcustomplot.h>
#include <cmath>
#include <memory>
#include <utility>

#include "inspection_answers.h"
#include "panel_actions.h"
#include "tiny_setups.h"
#include "training/lag_response_view.h"
#include "training/sample_view.h"
#include "training/training_panel.h"

using namespace poslab::ui;

namespace {
constexpr int kWaitMs = 60000;

// kernel-lm at T = 16 (probed at 16, 32 and 8 x 16 = 128); d_model 32, 2 heads (head size 16).
poslab::ExperimentSpec tinyKernelLm(long long steps) {
  poslab::ExperimentSpec e = test::tinyIndirectSetup({"rope"}, 1, 0, "tiny-kernel-lm");
  e.base.task.id = "kernel-lm";
  e.base.task.kernel = "mixed_raw";
  e.base.task.options = nlohmann::json::object();
  e.base.task.trainLength = 16;
  e.base.run.evalLengths = {16, 32};
  e.base.run.steps = steps;
  e.base.optim.batch = 16;
  return e;
}

// The task's kernel straight from MATH 3.2.1 (mixed_raw, L = 16, omega = 10000^(-6/16)), normalised
// over the training lags 1..15.
double mixedRaw(double d) {
  const double L = 16, omega = std::pow(10000.0, -6.0 / 16.0);
  return d / L * std::cos(omega * d);
}
double mixedRawNorm() {
  double ss = 0;
  for (int d = 1; d < 16; ++d) ss += mixedRaw(d) * mixedRaw(d);
  return std::sqrt(ss);
}

double cosine(const std::vector<double>& a, const std::vector<double>& b,
              const std::vector<long long>& lags, long long from, long long to) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t k = 0; k < lags.size(); ++k) {
    if (lags[k] < from || lags[k] > to) continue;
    ab += a[k] * b[k];
    aa += a[k] * a[k];
    bb += b[k] * b[k];
  }
  return ab / std::sqrt(aa * bb);
}

}  // namespace

class TestLagResponse : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void kernelLmRunShowsItsLearnedKernel() {
    TrainingPanel panel;
    panel.resize(1100, 760);
    panel.show();
    test::loadExperiment(panel, tinyKernelLm(120));
    LagResponseView* view = panel.lagResponseView();
    QCOMPARE(panel.viewTabs()->tabText(panel.viewTabs()->indexOf(view)), QString("Learned kernel"));
    QCOMPARE(panel.viewTabs()->indexOf(view), panel.viewTabs()->indexOf(panel.sampleView()) + 1);
    QVERIFY(!view->measureButton()->isEnabled());  // no run yet
    test::clickButton(&panel, "playButton");
    QTRY_VERIFY_WITH_TIMEOUT(panel.allFinished(), kWaitMs);
    // Offered: the evaluation lengths and 8x the training length, the longest chosen.
    auto* length = view->findChild<QComboBox*>("lagResponseLength");
    QCOMPARE(length->count(), 3);
    QCOMPARE(length->itemText(0), QString("16"));
    QCOMPARE(length->itemText(1), QString("32"));
    QCOMPARE(view->length(), 128LL);
    QVERIFY(view->measureButton()->isEnabled());
    QVERIFY(!view->plot()->isHidden());
    // The run's end measures once by itself, at the chosen length.
    QTRY_COMPARE_WITH_TIMEOUT(view->shown().step, 120LL, kWaitMs);
    QCOMPARE(view->shown().response.length, 128LL);
    QCOMPARE(view->shown().response.lags.size(), size_t(127));  // 127 <= 128 lags: all of them
    const QString dir = qEnvironmentVariable("POSLAB_TRAINING_SHOTS");
    if (!dir.isEmpty()) {
      panel.viewTabs()->setCurrentWidget(view);
      QCoreApplication::processEvents();
      QVERIFY(panel.grab().save(QDir(dir).filePath("learned-kernel.png")));
    }

    // Another length: the plot clears until Measure.
    length->setCurrentText("32");
    QCOMPARE(view->plot()->graph(0)->dataCount(), 0);
    QVERIFY(view->infoText().contains("press Measure"));
    test::clickButton(view, "lagResponseMeasure");
    QTRY_COMPARE_WITH_TIMEOUT(view->shown().response.length, 32LL, kWaitMs);
    const TrainingLagResponse& r = view->shown();
    QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
    QCOMPARE(r.step, 120LL);
    QCOMPARE(r.response.trainLength, 16LL);
    QCOMPARE(r.response.samples, LagResponseView::kSamples);
    // Every lag 1..31 in order; the target is the task's kernel; the response is finite and moves.
    QCOMPARE(r.response.lags.size(), size_t(31));
    QCOMPARE(r.response.response.size(), size_t(31));
    QCOMPARE(r.response.target.size(), size_t(31));
    const double norm = mixedRawNorm();
    double largest = 0;
    for (size_t k = 0; k < 31; ++k) {
      QCOMPARE(r.response.lags[k], static_cast<long long>(k + 1));
      const double want = mixedRaw(static_cast<double>(k + 1)) / norm;
      QVERIFY2(
          std::abs(r.response.target[k] - want) < 1e-9,
          qPrintable(
              QString("K(%1) = %2, expected %3").arg(k + 1).arg(r.response.target[k]).arg(want)));
      QVERIFY(std::isfinite(r.response.response[k]));
      largest = std::max(largest, std::abs(r.response.response[k]));
    }
    QVERIFY(largest > 0);
    // omega d < pi/2 here: the kernel is positive and grows with d over the trained lags.
    QVERIFY(r.response.target[14] > r.response.target[0]);
    // The CLI's summary: cosines over all lags, 1..15 and 16..31, and 1 - arccos(cos) / pi.
    const auto& lags = r.response.lags;
    const double all = cosine(r.response.response, r.response.target, lags, 1, 31);
    QVERIFY(std::abs(r.summary.cosineAll - all) < 1e-9);
    QVERIFY(std::abs(r.summary.cosineTrained -
                     cosine(r.response.response, r.response.target, lags, 1, 15)) < 1e-9);
    QVERIFY(std::abs(r.summary.cosineBeyond -
                     cosine(r.response.response, r.response.target, lags, 16, 31)) < 1e-9);
    QVERIFY(std::abs(r.summary.impliedAccuracy - (1 - std::acos(all) / M_PI)) < 1e-9);
    const QString info = view->infoText();
    QVERIFY2(info.contains("rope at step 120: T = 32 (trained at 16), 8 samples, 31 lags"),
             qPrintable(info));
    QVERIFY2(info.contains("all lags 1..31: " + QString::number(all, 'g', 3)), qPrintable(info));
    QVERIFY2(info.contains("label " + QString::number(r.summary.impliedAccuracy, 'g', 3) +
                           " of length-32"),
             qPrintable(info));
    QVERIFY2(
        info.contains("trained lags 1..15: " + QString::number(r.summary.cosineTrained, 'g', 3)),
        qPrintable(info));
    QVERIFY2(info.contains("beyond, 16..31: " + QString::number(r.summary.cosineBeyond, 'g', 3)),
             qPrintable(info));
    // Two graphs, response on the left axis and the kernel on the right, T - 1 points each, and
    // the dashed line at the training length.
    QCustomPlot* plot = view->plot();
    QCOMPARE(plot->graphCount(), 2);
    QCOMPARE(plot->graph(0)->dataCount(), 31);
    QCOMPARE(plot->graph(1)->dataCount(), 31);
    QCOMPARE(plot->graph(0)->valueAxis(), plot->yAxis);
    QCOMPARE(plot->graph(1)->valueAxis(), plot->yAxis2);
    for (int k = 0; k < 31; ++k) {
      QCOMPARE(plot->graph(0)->data()->at(k)->key, double(k + 1));
      QCOMPARE(plot->graph(0)->data()->at(k)->value, r.response.response[size_t(k)]);
      QCOMPARE(plot->graph(1)->data()->at(k)->value, r.response.target[size_t(k)]);
    }
    auto* line = plot->findChild<QCPItemStraightLine*>();
    QVERIFY(line);
    QVERIFY(line->visible());
    QCOMPARE(line->point1->coords().x(), 16.0);
    QCOMPARE(line->point2->coords().x(), 16.0);

    // Reset: the response belonged to the model before it; the view asks for a new measurement.
    test::clickButton(&panel, "resetButton");
    QCOMPARE(view->plot()->graph(0)->dataCount(), 0);
    QCOMPARE(view->shown().step, 0LL);
    QVERIFY2(view->infoText().contains("press Measure"), qPrintable(view->infoText()));

    // Errors come back as text: a length the task cannot generate.
    QSignalSpy spy(panel.run(0), &TrainingRun::inspected);
    panel.run(0)->inspect(inspectionRequest(kLagResponseInspection, LagResponseArgs{1, 2}));
    const auto bad = test::awaitAnswer<TrainingLagResponse>(spy, kLagResponseInspection, kWaitMs);
    QVERIFY(bad.has_value());
    QVERIFY2(bad->error.contains("length 1"), qPrintable(bad->error));
    QVERIFY(bad->response.lags.empty());
    // Issue 34: 256 samples of 129 passes of 2048 tokens are over the request budget (about 5e12
    // multiply-adds, docs/LIMITS.md): refused at once, naming the request, the estimate and the
    // budget, and the tab says so.
    spy.clear();
    panel.run(0)->inspect(inspectionRequest(kLagResponseInspection, LagResponseArgs{2048, 256}));
    const auto big = test::awaitAnswer<TrainingLagResponse>(spy, kLagResponseInspection, kWaitMs);
    QVERIFY(big.has_value());
    QVERIFY2(big->error.contains("the lag response at length 2048 with 256 samples and 128 lags "
                                 "needs about") &&
                 big->error.contains("multiply-adds, over the budget of 5e+10"),
             qPrintable(big->error));
    QVERIFY(big->response.lags.empty());
  }

  // Replacing the runs while a long probe is running stops the probe instead of waiting for it
  // (and must not touch the run being destroyed: an earlier version crashed here).
  void replacingTheRunsCancelsAProbe() {
    TrainingPanel panel;
    test::loadExperiment(panel, tinyKernelLm(100));
    test::clickButton(&panel, "stepButton");
    QTRY_COMPARE_WITH_TIMEOUT(panel.stepCount(), 1LL, kWaitMs);
    auto outcome = std::make_shared<std::pair<bool, QString>>(false, QString());  // (came, error)
    auto mutex = std::make_shared<QMutex>();
    connect(
        panel.run(0), &TrainingRun::inspected, this,
        [outcome, mutex](int, const InspectionResult& r) {
          QMutexLocker lock(mutex.get());
          *outcome = {true, r.value.value<TrainingLagResponse>().error};
        },
        Qt::DirectConnection);  // on the worker thread, before the run is gone
    // Tens of seconds if it ran to the end (2 x 129 passes of 2048 tokens, just under the budget).
    panel.run(0)->inspect(inspectionRequest(kLagResponseInspection, LagResponseArgs{2048, 2}));
    QTest::qWait(300);                               // let it start
    test::loadExperiment(panel, tinyKernelLm(100));  // stops and joins the old run
    QMutexLocker lock(mutex.get());
    // Either it had not started (queued jobs never run after a stop) or it was cancelled.
    QVERIFY2(!outcome->first || outcome->second.contains("cancelled"),
             qPrintable(outcome->second.isEmpty() ? QString("the probe ran to its end")
                                                  : outcome->second));
  }

  // Indirect indexing has no label weights: the tab says so, Measure stays disabled, and a
  // request made anyway comes back with core's message.
  void otherTasksSayWhy() {
    TrainingPanel panel;
    panel.show();
    test::loadExperiment(panel, test::tinyIndirectSetup({"rope"}));
    test::clickButton(&panel, "stepButton");
    QTRY_COMPARE_WITH_TIMEOUT(panel.stepCount(), 1LL, kWaitMs);
    LagResponseView* view = panel.lagResponseView();
    QVERIFY(!view->measurable());
    QVERIFY(!view->measureButton()->isEnabled());
    QVERIFY2(view->infoText().contains(
                 "The learned kernel is measured for kernel-lm and sector-teacher runs"),
             qPrintable(view->infoText()));
    QVERIFY(view->infoText().contains("indirect-indexing"));
    QVERIFY(view->plot()->isHidden());
    QSignalSpy spy(panel.run(0), &TrainingRun::inspected);
    panel.run(0)->inspect(inspectionRequest(kLagResponseInspection, LagResponseArgs{12, 2}));
    const auto r = test::awaitAnswer<TrainingLagResponse>(spy, kLagResponseInspection, kWaitMs);
    QVERIFY(r.has_value());
    QVERIFY2(r->error.contains("kernel-lm or sector-teacher"), qPrintable(r->error));
    QTest::qWait(50);
    QCOMPARE(view->plot()->graph(0)->dataCount(), 0);  // the panel shows nothing it did not ask
  }
};

QTEST_MAIN(TestLagResponse)
#include "test_lag_response.moc"
