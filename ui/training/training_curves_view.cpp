#include "training/training_curves_view.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <cmath>

#include "plot_style.h"

namespace poslab::ui {

namespace {
QCustomPlot* makePlot(QWidget* parent, const QString& name, const QString& x, const QString& y) {
  auto* plot = new QCustomPlot(parent);
  plot->setObjectName(name);
  stylePlot(plot, x, y);
  plot->setMinimumSize(300, 180);
  placeLegendTop(plot);
  return plot;
}
}  // namespace

TrainingCurvesView::TrainingCurvesView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  lossPlot_ = makePlot(this, "lossPlot", tr("step"), tr("training loss"));
  accuracyPlot_ = makePlot(this, "accuracyPlot", tr("step"), tr("training accuracy"));
  auto* evalRow = new QHBoxLayout;
  evalMetric_ = new QComboBox(this);
  evalMetric_->setObjectName("evalMetric");
  evalMetric_->addItems(
      {tr("accuracy"), tr("loss"), tr("final-query entropy (nats)"), tr("final-query support")});
  evalMetric_->setToolTip(
      tr("Entropy and support exp(H) of the last layer's attention from the final query over "
         "the keys before it, as the PJ-RoPE reference reports them (sector-teacher only)"));
  evalRow->addWidget(new QLabel(tr("evaluation vs length:"), this));
  evalRow->addWidget(evalMetric_);
  evalRow->addStretch(1);
  evalPlot_ = makePlot(this, "evalPlot", tr("evaluation length T"), tr("accuracy"));
  setLogAxis(evalPlot_->xAxis, true);
  evalPlot_->xAxis->setNumberFormat("f");  // lengths read better as 64, 256, 1024 than 10^n
  layout->addWidget(lossPlot_, 1);
  layout->addWidget(accuracyPlot_, 1);
  layout->addLayout(evalRow);
  layout->addWidget(evalPlot_, 1);
  connect(evalMetric_, &QComboBox::currentIndexChanged, this, [this] {
    evalPlot_->yAxis->setLabel(evalMetric_->currentText());
    Q_EMIT metricChanged();
  });
}

void TrainingCurvesView::setRuns(const QStringList& families) {
  for (QCustomPlot* p : {lossPlot_, accuracyPlot_, evalPlot_}) {
    p->clearGraphs();
    p->replot();
  }
  curves_.clear();
  for (int i = 0; i < families.size(); ++i) {
    const QPen pen(seriesColor(i), 1.5);
    Curves c;
    c.loss = lossPlot_->addGraph();
    c.accuracy = accuracyPlot_->addGraph();
    c.eval = evalPlot_->addGraph();
    for (QCPGraph* g : {c.loss, c.accuracy, c.eval}) {
      g->setName(families[i]);
      g->setPen(pen);
    }
    c.eval->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 6));
    curves_.push_back(c);
  }
}

void TrainingCurvesView::clearData(int run) {
  if (run < 0 || run >= static_cast<int>(curves_.size())) return;
  const Curves& c = curves_[static_cast<size_t>(run)];
  for (QCPGraph* g : {c.loss, c.accuracy, c.eval}) g->data()->clear();
}

void TrainingCurvesView::clearAllData() {
  for (int i = 0; i < static_cast<int>(curves_.size()); ++i) clearData(i);
}

void TrainingCurvesView::addStep(int run, const poslab::Snapshot& s) {
  if (run < 0 || run >= static_cast<int>(curves_.size()) || s.step <= 0) return;
  const Curves& c = curves_[static_cast<size_t>(run)];
  if (std::isfinite(s.loss)) c.loss->addData(static_cast<double>(s.step), s.loss);
  if (std::isfinite(s.accuracy)) c.accuracy->addData(static_cast<double>(s.step), s.accuracy);
}

void TrainingCurvesView::showEvaluation(int run, const std::vector<poslab::EvalResult>& eval) {
  if (run < 0 || run >= static_cast<int>(curves_.size())) return;
  QVector<double> lengths, values;
  for (const poslab::EvalResult& e : eval) {
    const double v = shownMetric(e);
    if (!std::isfinite(v)) continue;
    lengths.push_back(static_cast<double>(e.length));
    values.push_back(v);
  }
  curves_[static_cast<size_t>(run)].eval->setData(lengths, values, true);
}

double TrainingCurvesView::shownMetric(const poslab::EvalResult& point) const {
  switch (evalMetric_->currentIndex()) {
    case 0:
      return point.accuracy;
    case 1:
      return point.loss;
    case 2:
      return point.finalQueryEntropy;
    default:
      return point.finalQuerySupport;
  }
}

void TrainingCurvesView::replot() {
  for (QCustomPlot* p : {lossPlot_, accuracyPlot_, evalPlot_}) {
    bool empty = true;
    for (int g = 0; g < p->graphCount(); ++g) empty = empty && p->graph(g)->data()->isEmpty();
    if (empty) {  // nothing yet (the evaluation runs at the end): a frame, not stray tick labels
      p->xAxis->setRange(p == evalPlot_ ? 10 : 0, p == evalPlot_ ? 1000 : 10);
      p->yAxis->setRange(0, 1);
      p->replot();
      continue;
    }
    p->rescaleAxes();
    p->yAxis->scaleRange(1.1);
    if (p == evalPlot_) p->xAxis->scaleRange(1.2);  // end points off the frame (log axis)
    p->replot();
  }
}

}  // namespace poslab::ui
