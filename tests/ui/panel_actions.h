// What the training-panel tests do as a user would: load an experiment, click a button.
#pragma once

#include <QPushButton>
#include <QString>
#include <QTest>

#include "training/training_panel.h"

namespace poslab::ui::test {

// Loads `e` into the panel as the Presets menu would; a refusal fails the calling test.
inline void loadExperiment(TrainingPanel& panel, const poslab::ExperimentSpec& e) {
  QString error;
  QVERIFY2(panel.setExperiment(e, &error), qPrintable(error));
}

// Clicks the push button named `objectName` under `root` (a missing one fails the test).
inline void clickButton(QWidget* root, const char* objectName) {
  auto* b = root->findChild<QPushButton*>(objectName);
  QVERIFY(b);
  QTest::mouseClick(b, Qt::LeftButton);
}

}  // namespace poslab::ui::test
