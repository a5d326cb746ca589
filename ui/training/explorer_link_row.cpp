#include "training/explorer_link_row.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace poslab::ui {

ExplorerLinkRow::ExplorerLinkRow(QWidget* parent) : QWidget(parent) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  run_ = new QComboBox(this);
  run_->setObjectName("explorerLinkRun");
  run_->setToolTip(tr("The run whose learned position parameters the explorer shows"));
  head_ = new QComboBox(this);
  head_->setObjectName("explorerLinkHead");
  head_->setToolTip(
      tr("The mean over every head and block, or one head's blocks (each "
         "the mean over the layers)"));
  button_ = new QToolButton(this);
  button_->setObjectName("showInExplorerButton");
  row->addWidget(new QLabel(tr("learned:"), this));
  row->addWidget(run_, 1);
  row->addWidget(head_);
  row->addWidget(button_);
  setRuns({}, 1);
}

void ExplorerLinkRow::setRuns(const QStringList& families, int heads) {
  run_->clear();
  for (int i = 0; i < families.size(); ++i)
    run_->addItem(tr("run %1: %2").arg(i + 1).arg(families[i]));
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
