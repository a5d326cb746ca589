// The training tab's "Show in explorer" row: which run, and its learned values as the mean over
// every head or one head's own (the mean over layers either way). The button is the Training
// menu's Show in Explorer action (the composition root sets it, app_shell.cpp), which reads the
// choice here; the numbers come from core (train/learned_values.h).
#pragma once

#include <QStringList>
#include <QWidget>

class QComboBox;
class QToolButton;

namespace poslab::ui {

class ExplorerLinkRow : public QWidget {
  Q_OBJECT
 public:
  explicit ExplorerLinkRow(QWidget* parent = nullptr);

  // New runs: their families (run order) and the model's heads; the choice starts at run 1, mean.
  void setRuns(const QStringList& families, int heads, const QStringList& toolTips = {});
  int run() const;   // 0-based; -1 without runs
  int head() const;  // -1: the mean over every head; else 0-based
  bool setHead(int head);
  QToolButton* button() const { return button_; }

 private:
  QComboBox* run_ = nullptr;
  QComboBox* head_ = nullptr;
  QToolButton* button_ = nullptr;
};

}  // namespace poslab::ui
