#include "explorer/probe_view.h"

#include <algorithm>

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "analysis/target_label.h"
#include "bridge/catalog.h"
#include "export/plot_export.h"
#include "math/formula_unicode.h"
#include "plot_style.h"

namespace poslab::ui {

namespace {
constexpr int kPlotShare = 780, kTableShare = 220;  // initial split, scaled to the width
constexpr int kTableMaxWidth = 360;                 // logical pixels
}  // namespace

ProbeView::ProbeView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* controls = new QHBoxLayout;
  target_ = new QComboBox(this);
  target_->setObjectName("probeTarget");
  for (const auto& name : targets()) target_->addItem(QString::fromStdString(name));
  // Start at core's default target (the toy study's `mixed`), not at the first name listed.
  target_->setCurrentIndex(
      std::max(0, target_->findText(QString::fromStdString(ProbeSettingsUi{}.target))));
  set_ = new QComboBox(this);
  set_->setObjectName("probeSet");
  set_->addItem(tr("paper's families"));
  set_->addItem(tr("this family only"));
  set_->setToolTip(tr("Parameters you changed apply to every family that has them"));
  controls->addWidget(new QLabel(tr("target"), this));
  controls->addWidget(target_);
  controls->addWidget(new QLabel(tr("families"), this));
  controls->addWidget(set_);
  controls->addStretch(1);
  layout->addLayout(controls);

  auto* split = new QSplitter(Qt::Horizontal, this);
  plot_ = new QCustomPlot(split);
  plot_->setObjectName("probePlot");
  stylePlot(plot_, tr("lag d"), tr("K(d) and ridge fits on d < L"));
  placeLegendRight(plot_);
  windowLine_ = new QCPItemStraightLine(plot_);
  windowLine_->setPen(QPen(Qt::gray, 1.5, Qt::DashLine));
  windowLine_->setVisible(false);
  table_ = new QTableWidget(0, 6, split);
  table_->setObjectName("probeTable");
  table_->setHorizontalHeaderLabels(
      {tr("family"), tr("MSE in window"), tr("to 2L"), tr("to 4L"), tr("to 8L"), tr("basis")});
  table_->setToolTip(tr("Fitted on d = 0 … L−1; MSE over d = 0 … nL−1, best at 8L first"));
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  split->addWidget(plot_);
  split->addWidget(table_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  // The plot takes most of the width; the table keeps what its four short columns need.
  split->setSizes({kPlotShare, kTableShare});
  table_->setMaximumWidth(kTableMaxWidth);
  layout->addWidget(split, 1);

  connect(target_, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT settingsChanged(); });
  connect(set_, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT settingsChanged(); });
}

std::vector<std::string> ProbeView::targets() {
  return probeTargetNames();
}

ProbeSettingsUi ProbeView::settings() const {
  ProbeSettingsUi s;
  s.target = target_->currentText().toStdString();
  s.familyOnly = set_->currentIndex() == 1;
  return s;
}

void ProbeView::setSettings(const ProbeSettingsUi& s) {
  const int index = target_->findText(QString::fromStdString(s.target));
  if (index >= 0) target_->setCurrentIndex(index);
  set_->setCurrentIndex(s.familyOnly ? 1 : 0);
}

void ProbeView::fillRequest(ExplorerRequest& request) const {
  request.probe = settings();
}

void ProbeView::showResult(const ExplorerResult& result) {
  const ProbeReport& p = result.probe;
  plot_->clearGraphs();
  graphs_ = Graphs{};
  const QVector<double> lags(p.lags.begin(), p.lags.end());
  int color = 0;
  for (const auto& r : p.results) {
    QCPGraph* g = plot_->addGraph();
    const QString id = QString::fromStdString(r.family);
    g->setName(id);
    g->setPen(QPen(seriesColor(color++), 1.5));
    g->setData(lags, QVector<double>(r.fitted.begin(), r.fitted.end()), true);
    graphs_.fitted[id] = g;
  }
  graphs_.target = plot_->addGraph();  // last: drawn on top
  // The target reads as its kernel (the list above names it): "target K(d) = (d/L) cos ωd".
  graphs_.target->setName(
      tr("target K(d) = %1")
          .arg(formulaToUnicode(QString::fromStdString(probeTargetLabel(p.target)))));
  // The CSV column keeps its name (export/plot_export.h).
  graphs_.target->setProperty(kCsvKeyProperty, "target " + QString::fromStdString(p.target));
  graphs_.target->setPen(QPen(Qt::black, 3, Qt::DotLine));
  graphs_.target->setData(lags, QVector<double>(p.targetValues.begin(), p.targetValues.end()),
                          true);
  // The y range of the target, so that a fit that runs away past the window does not flatten it.
  plot_->rescaleAxes();
  graphs_.target->rescaleValueAxis(false, false);
  plot_->yAxis->scaleRange(1.5);
  const double L = static_cast<double>(p.trainLength);
  windowLine_->point1->setCoords(L, 0);
  windowLine_->point2->setCoords(L, 1);
  windowLine_->setVisible(p.trainLength > 0);
  plot_->replot();

  table_->setRowCount(static_cast<int>(p.results.size()));
  for (int row = 0; row < static_cast<int>(p.results.size()); ++row) {
    const auto& r = p.results[static_cast<size_t>(row)];
    table_->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(r.family)));
    for (int n = 0; n < 4 && n < static_cast<int>(r.mseByLength.size()); ++n)
      table_->setItem(
          row, 1 + n,
          new QTableWidgetItem(QString::number(r.mseByLength[static_cast<size_t>(n)], 'g', 4)));
    table_->setItem(row, 5, new QTableWidgetItem(QString::number(r.basisSize)));
  }
}

}  // namespace poslab::ui
