// The live-training tab through its buttons: a two-family compare plays, pauses, steps once
// (+1 step for every run) and resets (step 0, empty curves). Then its views (the setup form has
// its own test, test_training_form.cpp): the learned position parameters against the step (their
// mean over the layers and each layer's own), the trained model's attention maps, the
// indirect-indexing sample table, and a run that diverges pausing itself with core's message.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QThread>
#include <QtTest>

#include <qcustomplot.h>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
#include <numeric>
#include <utility>

#include "lessons/lesson.h"
#include "panel_actions.h"
#include "tiny_setups.h"
#include "train/architecture.h"
#include "training/distance_accuracy_view.h"
#include "training/model_attention_view.h"
#include "training/position_history_view.h"
#include "training/sample_view.h"
#include "training/training_panel.h"

using namespace poslab::ui;

namespace {
constexpr int kWaitMs = 60000;
}

class TestTrainingPanel : public QObject {
  Q_OBJECT

  // A tiny configuration: steps take milliseconds on a CPU.
  static void makeTiny(TrainingPanel& panel) {
    panel.findChild<QSpinBox*>("steps")->setValue(1000);
    panel.findChild<QSpinBox*>("batch")->setValue(4);
    panel.findChild<QSpinBox*>("trainLength")->setValue(16);
    panel.findChild<QLineEdit*>("evalLengths")->setText("16,32");
  }
  static poslab::ExperimentSpec tinyIndirect(std::vector<std::string> families) {
    return test::tinyIndirectSetup(std::move(families));
  }

 private Q_SLOTS:
  void playPauseStepReset() {
    TrainingPanel panel;
    panel.show();
    makeTiny(panel);
    QVERIFY(panel.selectFamilies({"rope", "alibi"}));
    test::clickButton(&panel, "playButton");
    QCOMPARE(panel.runCount(), 2);
    QCOMPARE(panel.run(0)->deviceName(), std::string("cpu"));  // recorded at build: no wait
    QTRY_VERIFY_WITH_TIMEOUT(panel.stepCount() >= 3, kWaitMs);
    test::clickButton(&panel, "pauseButton");
    QVERIFY(!panel.isPlaying());
    // Each run finishes the step it was in when Pause was pressed; wait until nothing moves.
    auto steps = [&] { return std::make_pair(panel.runStep(0), panel.runStep(1)); };
    std::pair<long long, long long> settled{-1, -1};
    for (int tries = 0; tries < 40 && settled != steps(); ++tries) {
      settled = steps();
      QTest::qWait(400);
    }
    QCOMPARE(steps(), settled);
    test::clickButton(&panel, "stepButton");
    // Every run takes exactly one more step, and its loss curve gets exactly one more point.
    QTRY_COMPARE_WITH_TIMEOUT(panel.runStep(0), settled.first + 1, kWaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(panel.runStep(1), settled.second + 1, kWaitMs);
    QCOMPARE(panel.curves()[0].loss->dataCount(), int(settled.first + 1));
    QCOMPARE(panel.curves()[1].loss->dataCount(), int(settled.second + 1));
    QCOMPARE(panel.curves()[0].loss->keyAxis(), panel.curves()[1].loss->keyAxis());  // shared axes
    test::clickButton(&panel, "resetButton");
    QTRY_COMPARE_WITH_TIMEOUT(panel.stepCount(), 0LL, kWaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(panel.curves()[0].loss->dataCount(), 0, kWaitMs);
    QCOMPARE(panel.findChild<QLabel*>("stepLabel")->text(), QString("step 0"));
  }

  // Sector teachers: the evaluation curve can show the final query's attention entropy and
  // support (the PJ reference's report), between 0 and log(T - 1) and 1 and T - 1.
  void sectorTeacherShowsFinalQueryAttention() {
    TrainingPanel panel;
    panel.resize(1000, 760);
    panel.show();
    poslab::ExperimentSpec e = tinyIndirect({"pj-bias", "rope"});
    e.base.task.id = "sector-teacher";
    e.base.task.kernel = "recency_weak_jet";
    e.base.task.options.clear();
    e.base.task.trainLength = 16;
    e.base.run.evalLengths = {16, 32};
    e.base.run.steps = 20;
    e.base.run.evalEvery = 10;
    test::loadExperiment(panel, e);
    test::clickButton(&panel, "playButton");
    QTRY_VERIFY_WITH_TIMEOUT(panel.allFinished(), kWaitMs);
    auto* metric = panel.findChild<QComboBox*>("evalMetric");
    QVERIFY(metric);
    for (int shown : {2, 3}) {
      metric->setCurrentIndex(shown);
      QCoreApplication::processEvents();
      for (int run = 0; run < panel.runCount(); ++run) {
        const auto& points = *panel.curves()[static_cast<size_t>(run)].eval->data();
        QCOMPARE(points.size(), 2);
        for (auto it = points.constBegin(); it != points.constEnd(); ++it) {
          const QCPGraphData& p = *it;
          const double keys = p.key - 1;  // the bits before the final query
          const double lo = shown == 2 ? 0.0 : 1.0, hi = shown == 2 ? std::log(keys) : keys;
          QVERIFY2(p.value >= lo - 1e-9 && p.value <= hi + 1e-9,
                   qPrintable(QString("%1 at T = %2").arg(p.value).arg(p.key)));
        }
      }
    }
    metric->setCurrentIndex(2);
    panel.replot();
    const QString dir = qEnvironmentVariable("POSLAB_TRAINING_SHOTS");
    if (!dir.isEmpty())
      QVERIFY(panel.grab().save(QDir(dir).filePath("training-final-query-entropy.png")));
  }

  // The parameter plot shows Snapshot::position: its last point is the last snapshot's value
  // (the mean over heads, or each head as its own line).
  void positionParametersOverTime() {
    TrainingPanel panel;
    panel.show();
    makeTiny(panel);
    QVERIFY(panel.selectFamilies({"jordan-stabilized", "rope"}));
    test::clickButton(&panel, "stepButton");
    QTRY_VERIFY_WITH_TIMEOUT(panel.stepCount() >= 1, kWaitMs);
    test::clickButton(&panel, "stepButton");
    QTRY_VERIFY_WITH_TIMEOUT(panel.stepCount() >= 2, kWaitMs);
    panel.replot();
    PositionHistoryView* view = panel.positionView();
    QVERIFY(view->setParameter("gamma"));
    // Runs follow the family list's (MATH 1) order.
    const int j = panel.runFamily(0) == "jordan-stabilized" ? 0 : 1, r = 1 - j;
    QCOMPARE(panel.runFamily(r), std::string("rope"));
    QVERIFY(panel.lastSnapshot(j).position.count("gamma"));
    const std::vector<double> gamma = panel.lastSnapshot(j).position.at("gamma");
    QVERIFY(!gamma.empty());
    const double mean = std::accumulate(gamma.begin(), gamma.end(), 0.0) / gamma.size();
    view->setEachComponent(false);
    auto graphs = view->graphs(j);
    QCOMPARE(graphs.size(), size_t(1));
    QCOMPARE(graphs[0]->dataCount(), 2);
    auto last = graphs[0]->data()->at(graphs[0]->dataCount() - 1);
    QCOMPARE(last->key, 2.0);
    QVERIFY(std::abs(last->value - mean) <= 1e-12 * std::max(1.0, std::abs(mean)));
    QVERIFY(view->graphs(r).empty());  // rope learns no gamma
    QVERIFY(panel.findChild<QLabel*>("positionNote")->text().contains("rope"));
    view->setEachComponent(true);
    graphs = view->graphs(j);
    QCOMPARE(graphs.size(), gamma.size());
    for (size_t c = 0; c < gamma.size(); ++c)
      QCOMPARE(graphs[c]->data()->at(graphs[c]->dataCount() - 1)->value, gamma[c]);
    QCOMPARE(graphs[0]->pen().color(), graphs.back()->pen().color());  // one colour per family
    // The list and the axis show the symbol, not the snapshot's name (issue #16: math a student
    // can read).
    const QString label = view->plot()->yAxis->label();
    QVERIFY2(label.startsWith(QStringLiteral("γ")) && !label.contains("gamma"), qPrintable(label));
    auto* list = panel.findChild<QComboBox*>("positionParameter");
    QCOMPARE(list->currentText(), QStringLiteral("γ"));
    if (panel.lastSnapshot(j).position.count("eta")) {
      QVERIFY(view->setParameter("eta"));
      QCOMPARE(list->currentText(), QStringLiteral("η"));
      QCOMPARE(view->parameter(), QString("eta"));
    }
    for (int i = 0; i < list->count(); ++i)
      QVERIFY2(!list->itemText(i).contains(QRegularExpression("^[a-z_]+$")),
               qPrintable(list->itemText(i)));
  }

  // Each layer learns its own position parameters: the layer list shows one layer's values as
  // core reported them (Snapshot::positionLayers), not the mean over the layers. PJ-bias's kappa is
  // softplus(kappa_raw) (MATH 2.3): hand-set to softplus(-1) in layer 1 and softplus(3) in layer 2,
  // one step (lr 3e-3) moves each by far less than their difference.
  void positionParametersPerLayer() {
    TrainingPanel panel;
    panel.resize(1000, 760);
    panel.show();
    test::loadExperiment(panel, tinyIndirect({"pj-bias"}));  // 2 layers, 2 heads
    test::clickButton(&panel, "stepButton");
    QTRY_COMPARE_WITH_TIMEOUT(panel.stepCount(), 1LL, kWaitMs);
    panel.run(0)->setParameterValue("block0.attn.position.kappa_raw", -1.0);
    panel.run(0)->setParameterValue("block1.attn.position.kappa_raw", 3.0);
    test::clickButton(&panel, "stepButton");
    QTRY_COMPARE_WITH_TIMEOUT(panel.stepCount(), 2LL, kWaitMs);
    QVERIFY2(!panel.statusText().contains("cannot set"), qPrintable(panel.statusText()));
    panel.replot();
    const poslab::Snapshot& s = panel.lastSnapshot(0);
    QCOMPARE(s.positionLayers.size(), size_t(2));
    const std::vector<double> kappa0 = s.positionLayers[0].at("kappa"),
                              kappa1 = s.positionLayers[1].at("kappa"),
                              mean = s.position.at("kappa");
    QCOMPARE(kappa1.size(), size_t(2));  // one per head
    auto softplus = [](double x) { return std::log1p(std::exp(x)); };
    for (size_t h = 0; h < 2; ++h) {
      QVERIFY2(std::abs(kappa0[h] - softplus(-1)) < 0.02, qPrintable(QString::number(kappa0[h])));
      QVERIFY2(std::abs(kappa1[h] - softplus(3)) < 0.02, qPrintable(QString::number(kappa1[h])));
      QVERIFY(std::abs(mean[h] - (kappa0[h] + kappa1[h]) / 2) < 1e-9);  // position: their mean
    }
    PositionHistoryView* view = panel.positionView();
    panel.viewTabs()->setCurrentWidget(view);
    QVERIFY(view->setParameter("kappa"));
    view->setEachComponent(true);
    auto* layers = panel.findChild<QComboBox*>("positionLayer");
    QVERIFY(layers && layers->isVisible());
    QCOMPARE(layers->count(), 3);
    QCOMPARE(layers->itemText(0), QString("mean over layers"));
    QCOMPARE(layers->itemText(2), QString("layer 2"));
    auto lastValues = [&] {
      std::vector<double> out;
      for (QCPGraph* g : view->graphs(0)) out.push_back(g->data()->at(g->dataCount() - 1)->value);
      return out;
    };
    QCOMPARE(view->layer(), -1);  // the mean by default, as before
    QCOMPARE(lastValues(), mean);
    layers->setCurrentIndex(2);  // as a user picks it
    QCOMPARE(view->layer(), 1);
    QCOMPARE(view->graphs(0).front()->dataCount(), 2);  // steps 1 and 2 of layer 2's own history
    QCOMPARE(lastValues(), kappa1);
    for (size_t h = 0; h < 2; ++h) QVERIFY(std::abs(lastValues()[h] - mean[h]) > 1);
    QVERIFY2(view->plot()->yAxis->label().contains("layer 2"),
             qPrintable(view->plot()->yAxis->label()));
    QVERIFY(view->setLayer(0));
    QCOMPARE(lastValues(), kappa0);
    QVERIFY(!view->setLayer(2));  // a 2-layer model has no third layer
    // A reset keeps the chosen layer; the fresh model's values (step 0) come back per layer too.
    QVERIFY(view->setLayer(1));
    test::clickButton(&panel, "resetButton");
    QTRY_COMPARE_WITH_TIMEOUT(panel.stepCount(), 0LL, kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(!view->graphs(0).empty(), kWaitMs);
    QCOMPARE(view->layer(), 1);
    const QString dir = qEnvironmentVariable("POSLAB_TRAINING_SHOTS");
    if (!dir.isEmpty()) {
      test::clickButton(&panel, "stepButton");
      QTRY_COMPARE_WITH_TIMEOUT(panel.stepCount(), 1LL, kWaitMs);
      panel.run(0)->setParameterValue("block1.attn.position.kappa_raw", 3.0);
      for (int i = 0; i < 3; ++i) {
        test::clickButton(&panel, "stepButton");
        QTRY_COMPARE_WITH_TIMEOUT(panel.stepCount(), 2LL + i, kWaitMs);
      }
      view->setEachComponent(false);
      panel.replot();
      QVERIFY(panel.grab().save(QDir(dir).filePath("training-parameters-layer-2.png")));
    }
  }

  // The trained model's attention on the sample input: a causal map whose rows are
  // distributions, for the chosen layer and head; computed on the worker without blocking.
  void attentionMapsOfTheTrainedModel() {
    TrainingPanel panel;
    panel.show();
    test::loadExperiment(panel, tinyIndirect({"rope"}));
    panel.viewTabs()->setCurrentWidget(panel.attentionView());
    // The maps as the worker computed them (core's attentionSample), queued to here.
    std::vector<TrainingAttention> computed;
    for (int i = 1; i <= 3; ++i) {
      test::clickButton(&panel, "stepButton");
      if (i == 1)
        connect(
            panel.run(0), &TrainingRun::inspected, &panel,
            [&computed](int, const InspectionResult& r) {
              if (r.kind == kAttentionInspection)
                computed.push_back(r.value.value<TrainingAttention>());
            },
            Qt::QueuedConnection);
      QTRY_COMPARE_WITH_TIMEOUT(panel.stepCount(), (long long)i, kWaitMs);
    }
    ModelAttentionView* view = panel.attentionView();
    QTRY_COMPARE_WITH_TIMEOUT(view->shownStep(), 3LL, kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(!computed.empty() && computed.back().step == 3, kWaitMs);
    const poslab::AttentionSample core = computed.back().sample;
    QCOMPARE(core.length, 12LL);
    QCOMPARE(core.size, 12LL);                 // T <= kMaxSide: exact, not pooled
    QCOMPARE(core.maps.size(), size_t(2));     // layers
    QCOMPARE(core.maps[0].size(), size_t(2));  // heads
    auto checkRows = [&](long long T) {
      QCOMPARE(view->shownSize(), T);
      const auto& m = view->shownMap();
      QCOMPARE(m.size(), size_t(T * T));
      for (long long i = 0; i < T; ++i) {
        double row = 0;
        for (long long j = 0; j < T; ++j) {
          if (j > i) QCOMPARE(m[i * T + j], 0.0);  // causal
          row += m[i * T + j];
        }
        QVERIFY2(std::abs(row - 1) < 1e-5,
                 qPrintable(QString("row %1 sums to %2").arg(i).arg(row)));
      }
    };
    checkRows(12);
    QCOMPARE(view->shownMap(), core.maps[0][0]);  // layer 1 head 1, exactly what core computed
    panel.findChild<QSpinBox*>("modelAttentionHead")->setValue(2);
    QCOMPARE(view->shownMap(), core.maps[0][1]);
    QVERIFY(core.maps[0][1] != core.maps[0][0]);  // two heads of a trained model differ
    checkRows(12);
    panel.findChild<QSpinBox*>("modelAttentionLayer")->setValue(2);
    QCOMPARE(view->shownMap(), core.maps[1][1]);
    checkRows(12);
    QVERIFY(view->infoText().contains("layer 2 head 2"));
    // A longer sample input (an evaluation length) asks the worker for new maps.
    panel.findChild<QComboBox*>("modelAttentionLength")->setCurrentText("15");
    QTRY_COMPARE_WITH_TIMEOUT(view->shownSize(), 15LL, kWaitMs);
    checkRows(15);
  }

  // Indirect indexing: the table reads each sample back; the truth is the task's target, the
  // character `offset` places from the source, and correct rows are exactly prediction == truth.
  void indirectIndexingSampleTable() {
    TrainingPanel panel;
    panel.show();
    test::loadExperiment(panel, tinyIndirect({"rope", "pope"}));
    test::clickButton(&panel, "stepButton");
    QTRY_COMPARE_WITH_TIMEOUT(panel.stepCount(), 1LL, kWaitMs);
    SampleView* view = panel.sampleView();
    QTRY_COMPARE_WITH_TIMEOUT(view->shown().step, 1LL, kWaitMs);
    const TrainingSamples& s = view->shown();
    QCOMPARE(s.taskId, std::string("indirect-indexing"));
    QCOMPARE(int(s.examples.size()), SampleView::kExamples);
    QCOMPARE(s.indirect.size(), s.examples.size());
    QTableWidget* table = view->table();
    QCOMPARE(table->rowCount(), SampleView::kExamples);
    int correct = 0;
    for (int r = 0; r < table->rowCount(); ++r) {
      const auto& e = s.indirect[r];
      const auto& p = s.examples[r];
      QCOMPARE(e.truth, p.target);  // the task's target at the answer position
      QCOMPARE(e.truth, e.characters[e.sourcePosition + e.offset]);
      QCOMPARE(e.source, p.tokens[e.characters.size() + 1]);
      QCOMPARE(table->item(r, SampleView::kTruth)->text(), SampleView::symbol(p.target));
      QCOMPARE(table->item(r, SampleView::kPrediction)->text(), SampleView::symbol(p.prediction));
      QCOMPARE(table->item(r, SampleView::kSource)->text(), SampleView::symbol(e.source));
      QCOMPARE(table->item(r, SampleView::kOffset)->text().toLongLong(), e.offset);
      QVERIFY(table->item(r, SampleView::kSequence)
                  ->text()
                  .contains("<" + SampleView::symbol(e.truth) + ">"));
      const bool ok = p.prediction == p.target;
      QCOMPARE(table->item(r, SampleView::kCorrect)->text(), ok ? QString("✓") : QString("✗"));
      const QColor bg = table->item(r, SampleView::kSequence)->background().color();
      QCOMPARE(bg.green() > bg.red(), ok);  // correct rows green, wrong ones red
      correct += ok;
    }
    QVERIFY2(view->summaryText().contains(QString("%1 of 8 correct").arg(correct)),
             qPrintable(view->summaryText()));
    // The other run's answers on the same inputs.
    const std::vector<long long> firstInput = s.examples[0].tokens;
    panel.findChild<QComboBox*>("samplesRun")->setCurrentIndex(1);
    QTRY_VERIFY_WITH_TIMEOUT(view->summaryText().startsWith("pope"), kWaitMs);
    QCOMPARE(view->shown().examples[0].tokens, firstInput);  // identical sample inputs
  }

  // A NaN in a weight makes the next step diverge: the run pauses itself, the panel says so with
  // core's message (step, loss), and Play does not restart it until Reset.
  void divergingRunPausesItselfAndSaysWhy() {
    TrainingPanel panel;
    panel.show();
    makeTiny(panel);
    QVERIFY(panel.selectFamilies({"rope"}));
    test::clickButton(&panel, "playButton");
    QTRY_VERIFY_WITH_TIMEOUT(panel.stepCount() >= 2, kWaitMs);
    QVERIFY(panel.isPlaying());
    QCOMPARE(panel.runStateText(), QString("playing"));
    panel.run(0)->setParameterValue("head.weight", std::numeric_limits<double>::quiet_NaN());
    QTRY_VERIFY_WITH_TIMEOUT(panel.runStateText().contains("diverged"), kWaitMs);
    QVERIFY2(!panel.runStateText().contains("playing"), qPrintable(panel.runStateText()));
    QVERIFY(!panel.isPlaying());
    QVERIFY(panel.allFinished());
    const QString status = panel.statusText();
    QVERIFY2(status.contains("rope paused itself") &&
                 status.contains("training diverged at step") &&
                 status.contains("the loss is not finite"),
             qPrintable(status));
    const long long stopped = panel.stepCount();
    QVERIFY(panel.runStateText().contains(QString("diverged at step %1").arg(stopped)));
    test::clickButton(&panel, "playButton");  // a diverged run stays paused
    QVERIFY(!panel.isPlaying());
    QVERIFY2(panel.statusText().contains("press Reset"), qPrintable(panel.statusText()));
    QTest::qWait(300);
    QCOMPARE(panel.stepCount(), stopped);
    test::clickButton(&panel, "resetButton");  // a fresh model from the same seed trains again
    QTRY_COMPARE_WITH_TIMEOUT(panel.runStateText(), QString("paused"), kWaitMs);
    test::clickButton(&panel, "playButton");
    QTRY_VERIFY_WITH_TIMEOUT(panel.stepCount() >= 2, kWaitMs);
    QCOMPARE(panel.runStateText(), QString("playing"));
    test::clickButton(&panel, "pauseButton");
  }

  // Each view after a short compare run, as a user sees it. With POSLAB_TRAINING_SHOTS=DIR the
  // pictures are written there (for docs and for looking at them).
  void renderSubViews() {
    TrainingPanel panel;
    panel.resize(1000, 760);
    panel.show();
    poslab::ExperimentSpec e = tinyIndirect({"jordan-stabilized", "pope", "rope"});
    e.base.run.steps = 60;
    e.base.run.evalEvery = 20;
    e.base.optim.positionLrScale = 30;
    test::loadExperiment(panel, e);
    test::clickButton(&panel, "playButton");
    QTRY_VERIFY_WITH_TIMEOUT(panel.allFinished(), kWaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(panel.attentionView()->shownStep(), 60LL, kWaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(panel.sampleView()->shown().step, 60LL, kWaitMs);
    panel.replot();
    const QString dir = qEnvironmentVariable("POSLAB_TRAINING_SHOTS");
    // Lessons name the tabs by their place: one name per tab, in order.
    const std::vector<std::string>& names = poslab::lessonTrainingViews();
    QCOMPARE(panel.viewTabs()->count(), static_cast<int>(names.size()));
    QCOMPARE(panel.viewTabs()->indexOf(panel.distanceView()), int(names.size()) - 1);
    QCOMPARE(names.back(), std::string("key-distance"));
    for (int t = 0; t < panel.viewTabs()->count(); ++t) {
      panel.viewTabs()->setCurrentIndex(t);
      QCoreApplication::processEvents();
      const QPixmap shot = panel.grab();
      QVERIFY(!shot.isNull());
      if (!dir.isEmpty())
        QVERIFY(shot.save(QDir(dir).filePath(
            QString("training-%1.png").arg(QString::fromStdString(names[size_t(t)])))));
    }
    QCOMPARE(panel.positionView()->parameter(), QString("gamma"));  // shown first when present
    int withGamma = 0;
    for (int i = 0; i < panel.runCount(); ++i)
      withGamma += !panel.positionView()->graphs(i).empty();
    QCOMPARE(withGamma, 1);  // jordan-stabilized; pope and rope have none
  }

  // Snapshots the replaced runs emitted (the step in flight when their workers were joined) do
  // not land on the new runs: the new run's curve and step are its own.
  void snapshotsOfReplacedRunsAreDropped() {
    TrainingPanel panel;
    panel.show();
    test::loadExperiment(panel, tinyIndirect({"rope"}));
    test::clickButton(&panel, "playButton");
    QTRY_VERIFY_WITH_TIMEOUT(panel.stepCount() >= 3, kWaitMs);
    // Let the worker run ahead of what the panel has shown: snapshots wait in the event queue.
    const long long shown = panel.runStep(0);
    for (int i = 0; i < 400 && panel.run(0)->stepCount() < shown + 3; ++i)
      QThread::msleep(10);  // no event processing here
    QVERIFY(panel.run(0)->stepCount() >= shown + 3);
    test::loadExperiment(
        panel, tinyIndirect({"rope"}));       // replaces the runs; the queued snapshots are stale
    test::clickButton(&panel, "stepButton");  // new runs at once, before the queue is processed
    QCOMPARE(panel.runCount(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(panel.run(0)->stepCount(), 1LL, kWaitMs);
    QTest::qWait(200);  // every queued snapshot, stale or new, has been delivered
    QCOMPARE(panel.runStep(0), 1LL);
    QCOMPARE(panel.lastSnapshot(0).step, 1LL);
    QCOMPARE(panel.curves()[0].loss->dataCount(), 1);
    QCOMPARE(panel.curves()[0].loss->data()->at(0)->key, 1.0);
    QCOMPARE(panel.findChild<QLabel*>("stepLabel")->text(), QString("step 1"));
    QCOMPARE(panel.runStateText(), QString("paused"));
  }

  // Play on a run that has taken its last step leaves it finished (not "playing" forever) and
  // says how to train again.
  void playOnAFinishedRunSaysSo() {
    TrainingPanel panel;
    panel.show();
    poslab::ExperimentSpec e = tinyIndirect({"rope"});
    e.base.run.steps = 3;
    test::loadExperiment(panel, e);
    test::clickButton(&panel, "playButton");
    QTRY_VERIFY_WITH_TIMEOUT(panel.allFinished(), kWaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(panel.runStateText(), QString("finished"), kWaitMs);
    test::clickButton(&panel, "playButton");
    QCOMPARE(panel.runStateText(), QString("finished"));
    QVERIFY(!panel.isPlaying());
    QVERIFY2(panel.statusText().contains("rope finished: press Reset to train again"),
             qPrintable(panel.statusText()));
    QTest::qWait(300);
    QCOMPARE(panel.runStateText(), QString("finished"));
    QVERIFY(!panel.isPlaying());
    QCOMPARE(panel.stepCount(), 3LL);
    test::clickButton(&panel, "resetButton");  // Reset, then Play trains again
    QTRY_COMPARE_WITH_TIMEOUT(panel.runStateText(), QString("paused"), kWaitMs);
    test::clickButton(&panel, "playButton");
    QTRY_VERIFY_WITH_TIMEOUT(panel.allFinished(), kWaitMs);
    QCOMPARE(panel.stepCount(), 3LL);
  }

  // A setup loads exactly as written or not at all: lr 2.5e-5 and a position-lr scale of 0.0125
  // reach the runs unchanged; a value the controls would clamp or round is refused naming the
  // field, and the controls keep what they had.
  void loadedSetupIsExactOrRefused() {
    TrainingPanel panel;
    poslab::ExperimentSpec e = tinyIndirect({"rope"});
    e.base.optim.lr = 2.5e-5;
    e.base.optim.positionLrScale = 0.0125;
    test::loadExperiment(panel, e);
    QVERIFY(panel.experiment().base.optim.lr == 2.5e-5);
    QVERIFY(panel.experiment().base.optim.positionLrScale == 0.0125);
    test::clickButton(&panel, "stepButton");
    QCOMPARE(panel.runCount(), 1);
    QVERIFY(panel.run(0)->spec().config.optim.lr == 2.5e-5);
    QVERIFY(panel.run(0)->spec().config.optim.positionLrScale == 0.0125);
    // Typed in the box as a user would.
    auto* lr = panel.findChild<QDoubleSpinBox*>("lr");
    lr->clear();
    QTest::keyClicks(lr, "1.5e-4");
    lr->interpretText();
    QVERIFY2(lr->value() == 1.5e-4, qPrintable(lr->text()));

    auto refused = [&](const std::function<void(poslab::ExperimentSpec&)>& edit,
                       const QString& expected) {
      poslab::ExperimentSpec bad = e;
      edit(bad);
      const poslab::ExperimentSpec before = panel.experiment();
      QString error;
      QVERIFY(!panel.setExperiment(bad, &error));
      QVERIFY2(error.contains(expected), qPrintable(error));
      QCOMPARE(nlohmann::json(panel.experiment().base), nlohmann::json(before.base));
      QCOMPARE(panel.runCount(), 1);  // the runs stay too
    };
    refused([](auto& b) { b.base.model.dModel = 8192; },
            "field 'config.model.d_model' = 8192 is outside the training panel's range [4, 4096]");
    refused([](auto& b) { b.base.model.heads = 65; }, "field 'config.model.heads' = 65");
    refused([](auto& b) { b.base.run.evalEvery = -1; }, "field 'config.run.eval_every' = -1");
    refused([](auto& b) { b.base.optim.lr = 1.2345678901234567e-5; },
            "field 'config.optim.lr' = 1.2345678901234568e-05 has more digits");
    refused([](auto& b) { b.base.optim.positionLrScale = 1e6; },
            "field 'config.optim.position_lr_scale' = 1e+06 is outside");
    refused([](auto& b) { b.base.task.options["alphabet"] = 16.5; },
            "field 'config.task.options.alphabet' = 16.5 is not an integer");
    refused([](auto& b) { b.base.task.options["colour"] = 1; },
            "field 'config.task.options.colour': task indirect-indexing has no option");
    refused([](auto& b) { b.seeds = {2000000}; }, "field 'seeds' = 2000000 is outside");
  }

  void noFamilyCheckedIsReported() {
    TrainingPanel panel;
    QVERIFY(panel.selectFamilies({}));
    test::clickButton(&panel, "playButton");
    QCOMPARE(panel.runCount(), 0);
    QVERIFY2(panel.statusText().contains("check 1 to 4"), qPrintable(panel.statusText()));
  }
};

QTEST_MAIN(TestTrainingPanel)
#include "test_training_panel.moc"
