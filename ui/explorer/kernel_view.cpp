#include "explorer/kernel_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "plot_style.h"

namespace poslab::ui {

KernelView::KernelView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* controls = new QHBoxLayout;
  lagCount_ = new QComboBox(this);
  lagCount_->setObjectName("lagCount");
  for (int n = 16; n <= 32768; n *= 2) lagCount_->addItem(QString::number(n), n);
  lagCount_->setCurrentText("256");
  logLag_ = new QCheckBox(tr("log lag axis"), this);
  logLag_->setObjectName("logLag");
  controls->addWidget(new QLabel(tr("lags"), this));
  controls->addWidget(lagCount_);
  controls->addWidget(logLag_);
  controls->addStretch(1);
  layout->addLayout(controls);
  plot_ = new QCustomPlot(this);
  plot_->setObjectName("kernelPlot");
  stylePlot(plot_, tr("lag d = i − j (positions)"), tr("basis function / kernel K(d)"));
  placeLegendRight(plot_);
  layout->addWidget(plot_, 1);
  connect(lagCount_, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT settingsChanged(); });
  connect(logLag_, &QCheckBox::toggled, this, [this] { Q_EMIT settingsChanged(); });
}

void KernelView::fillRequest(ExplorerRequest& request) const {
  request.kernel.lagCount = lagCount_->currentData().toLongLong();
  request.kernel.logLag = logLag_->isChecked();
}

QCPGraph* KernelView::basisGraph(const QString& name) const {
  auto it = graphs_.basis.find(name);
  return it == graphs_.basis.end() ? nullptr : it->second;
}

void KernelView::showResult(const ExplorerResult& result) {
  const LagBasis& b = result.kernel;
  plot_->clearGraphs();
  graphs_ = Graphs{};
  const QVector<double> lags(b.lags.begin(), b.lags.end());
  for (size_t n = 0; n < b.columns.size(); ++n) {
    const QString name = QString::fromStdString(b.names[n]);
    QCPGraph* g = plot_->addGraph();
    g->setName(name);
    g->setPen(QPen(seriesColor(static_cast<int>(n)), 1.2));
    g->setData(lags, QVector<double>(b.columns[n].begin(), b.columns[n].end()), true);
    graphs_.basis[name] = g;
  }
  if (!b.kernel.empty()) {
    graphs_.kernel = plot_->addGraph();
    graphs_.kernel->setName(tr("kernel K(d)"));
    graphs_.kernel->setPen(QPen(Qt::black, 3));
    graphs_.kernel->setData(lags, QVector<double>(b.kernel.begin(), b.kernel.end()), true);
  }
  setLogAxis(plot_->xAxis, logLag_->isChecked());
  plot_->rescaleAxes();
  plot_->yAxis->scaleRange(1.08);  // a margin so curves at the extremes stay visible
  plot_->replot();
}

}  // namespace poslab::ui
