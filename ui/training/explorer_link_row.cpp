#include "training/explorer_link_row.h"

#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QToolButton>

namespace poslab::ui {

ExplorerLinkRow::ExplorerLinkRow(QWidget* parent) : QWidget(parent) {
  // Two lines, so that the row never widens the training form's column (a run's name can be
  // long; the combo shows what fits and the list shows it whole).
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(0, 0, 0, 0);
  run_ = new QComboBox(this);
  run_->setObjectName("explorerLinkRun");
  run_->setToolTip(tr("The run whose learned position parameters the explorer shows"));
  run_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  run_->setMinimumContentsLength(12);
  head_ = new QComboBox(this);
  head_->setObjectName("explorerLinkHead");
  head_->setToolTip(
      tr("The mean over every head and block, or one head's blocks (each "
         "the mean over the layers)"));
  button_ = new QToolButton(this);
  button_->setObjectName("showInExplorerButton");
  grid->addWidget(new QLabel(tr("learned:"), this), 0, 0);
  grid->addWidget(run_, 0, 1, 1, 2);
  grid->addWidget(head_, 1, 1);
  grid->addWidget(button_, 1, 2);
  grid->setColumnStretch(1, 1);
  setRuns({}, 1);
}

void ExplorerLinkRow::setRuns(const QStringList& families, int heads, const QStringList& toolTips) {
  run_->clear();
  for (int i = 0; i < families.size(); ++i) {
    run_->addItem(tr("run %1: %2").arg(i + 1).arg(families[i]));
    if (i < toolTips.size()) run_->setItemData(i, toolTips[i], Qt::ToolTipRole);
  }
  head_->clear();
  head_->addItem(tr("mean over heads"), -1);
  for (int h = 0; h < heads; ++h) head_->addItem(tr("head %1").arg(h + 1), h);
  run_->setEnabled(!families.isEmpty());
  head_->setEnabled(!families.isEmpty());
}

int ExplorerLinkRow::run() const {
  return run_->currentIndex();
}

int ExplorerLinkRow::head() const {
  return head_->currentData().isValid() ? head_->currentData().toInt() : -1;
}

bool ExplorerLinkRow::setHead(int head) {
  const int i = head_->findData(head);
  if (i < 0) return false;
  head_->setCurrentIndex(i);
  return true;
}

}  // namespace poslab::ui
