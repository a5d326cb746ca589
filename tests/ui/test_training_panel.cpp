// The live-training tab through its buttons: a two-family compare plays, pauses, steps once
// (+1 step for every run) and resets (step 0, empty curves).
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QtTest>

#include <utility>
#include <qcustomplot.h>

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
  static void click(TrainingPanel& panel, const char* button) {
    auto* b = panel.findChild<QPushButton*>(button);
    QVERIFY(b);
    QTest::mouseClick(b, Qt::LeftButton);
  }

 private Q_SLOTS:
  void playPauseStepReset() {
    TrainingPanel panel;
    panel.show();
    makeTiny(panel);
    QVERIFY(panel.selectFamilies({"rope", "alibi"}));
    click(panel, "playButton");
    QCOMPARE(panel.runCount(), 2);
    QTRY_VERIFY_WITH_TIMEOUT(panel.stepCount() >= 3, kWaitMs);
    click(panel, "pauseButton");
    QVERIFY(!panel.isPlaying());
    // Each run finishes the step it was in when Pause was pressed; wait until nothing moves.
    auto steps = [&] { return std::make_pair(panel.runStep(0), panel.runStep(1)); };
    std::pair<long long, long long> settled{-1, -1};
    for (int tries = 0; tries < 40 && settled != steps(); ++tries) {
      settled = steps();
      QTest::qWait(400);
    }
    QCOMPARE(steps(), settled);
    click(panel, "stepButton");
    // Every run takes exactly one more step, and its loss curve gets exactly one more point.
    QTRY_COMPARE_WITH_TIMEOUT(panel.runStep(0), settled.first + 1, kWaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(panel.runStep(1), settled.second + 1, kWaitMs);
    QCOMPARE(panel.curves()[0].loss->dataCount(), int(settled.first + 1));
    QCOMPARE(panel.curves()[1].loss->dataCount(), int(settled.second + 1));
    QCOMPARE(panel.curves()[0].loss->keyAxis(), panel.curves()[1].loss->keyAxis());  // shared axes
    click(panel, "resetButton");
    QTRY_COMPARE_WITH_TIMEOUT(panel.stepCount(), 0LL, kWaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(panel.curves()[0].loss->dataCount(), 0, kWaitMs);
    QCOMPARE(panel.findChild<QLabel*>("stepLabel")->text(), QString("step 0"));
  }

  void noFamilyCheckedIsReported() {
    TrainingPanel panel;
    QVERIFY(panel.selectFamilies({}));
    click(panel, "playButton");
    QCOMPARE(panel.runCount(), 0);
    QVERIFY2(panel.statusText().contains("check 1 to 4"), qPrintable(panel.statusText()));
  }
};

QTEST_MAIN(TestTrainingPanel)
#include "test_training_panel.moc"
