#include "explorer/norms_view.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "export/plot_export.h"
#include "lessons/window_state_check.h"
#include "math/formula_unicode.h"
#include "plot_style.h"

namespace poslab::ui {

namespace {
// Legend and axis text from the formula markup: log_{10} -> log₁₀.
QString u(const QString& markup) {
  return formulaToUnicode(markup);
}
}  // namespace

NormsView::NormsView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* controls = new QHBoxLayout;
  maxPos_ = new QComboBox(this);
  maxPos_->setObjectName("maxPos");
  for (long long n : maxPositions()) maxPos_->addItem(QString::number(n), static_cast<int>(n));
  maxPos_->setCurrentText("32768");
  precision_ = new QLabel(this);
  precision_->setObjectName("precision");
  precision_->setWordWrap(true);
  controls->addWidget(new QLabel(tr("largest position"), this));
  controls->addWidget(maxPos_);
  controls->addWidget(precision_, 1);
  layout->addLayout(controls);

  plot_ = new QCustomPlot(this);
  plot_->setObjectName("normsPlot");
  stylePlot(plot_, tr("position p"), u(tr("log_{10} of the norm ratio")));
  setLogAxis(plot_->xAxis, true);
  plot_->yAxis2->setVisible(true);
  plot_->yAxis2->setLabel(tr("logit scale: the largest |l(p, j)| over j ≤ p"));
  setLogAxis(plot_->yAxis2, true);
  graphs_.query = plot_->addGraph(plot_->xAxis, plot_->yAxis);
  graphs_.query->setName(u(tr("log_{10} ‖q′(p)‖/‖q‖")));
  graphs_.query->setPen(QPen(seriesColor(0), 2));
  graphs_.key = plot_->addGraph(plot_->xAxis, plot_->yAxis);
  graphs_.key->setName(u(tr("log_{10} ‖k′(p)‖/‖k‖")));
  graphs_.key->setPen(QPen(seriesColor(1), 2, Qt::DashLine));
  graphs_.logitScale = plot_->addGraph(plot_->xAxis, plot_->yAxis2);
  graphs_.logitScale->setName(tr("logit scale (right axis)"));
  graphs_.logitScale->setPen(QPen(seriesColor(2), 2));
  graphs_.chartQuery = plot_->addGraph(plot_->xAxis, plot_->yAxis);
  graphs_.chartQuery->setName(u(tr("light-cone chart: log_{10} ‖q′‖/‖q‖")));
  graphs_.chartQuery->setPen(QPen(seriesColor(3), 2, Qt::DotLine));
  graphs_.chartKey = plot_->addGraph(plot_->xAxis, plot_->yAxis);
  graphs_.chartKey->setName(u(tr("light-cone chart: log_{10} ‖k′‖/‖k‖")));
  graphs_.chartKey->setPen(QPen(seriesColor(4), 2, Qt::DashDotLine));
  // The legend reads as mathematics; the CSV export keeps its column names (export/plot_export.h).
  graphs_.query->setProperty(kCsvKeyProperty, QStringLiteral("log10 ‖q′(p)‖/‖q‖"));
  graphs_.key->setProperty(kCsvKeyProperty, QStringLiteral("log10 ‖k′(p)‖/‖k‖"));
  graphs_.chartQuery->setProperty(kCsvKeyProperty,
                                  QStringLiteral("light-cone chart: log10 ‖q′‖/‖q‖"));
  graphs_.chartKey->setProperty(kCsvKeyProperty,
                                QStringLiteral("light-cone chart: log10 ‖k′‖/‖k‖"));
  plot_->legend->setVisible(true);
  plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);

  float32Line_ = new QCPItemStraightLine(plot_);
  float32Line_->setPen(QPen(QColor(200, 0, 0), 1.5, Qt::DashDotLine));
  float32Label_ = new QCPItemText(plot_);
  float32Label_->setColor(QColor(200, 0, 0));
  float32Label_->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
  float32Label_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  float32Line_->setVisible(false);
  float32Label_->setVisible(false);
  layout->addWidget(plot_, 1);

  connect(maxPos_, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT settingsChanged(); });
}

std::vector<long long> NormsView::maxPositions() {
  return normsViewMaxPositions();  // core's, which a lesson's state is checked against
}

NormsSettings NormsView::settings() const {
  NormsSettings s;
  s.maxPos = maxPos_->currentData().toLongLong();
  return s;
}

void NormsView::setSettings(const NormsSettings& s) {
  const int index = maxPos_->findData(static_cast<int>(s.maxPos));
  if (index >= 0) maxPos_->setCurrentIndex(index);
}

void NormsView::fillRequest(ExplorerRequest& request) const {
  request.norms = settings();
}

QString NormsView::precisionText() const {
  return precision_->text();
}

void NormsView::showResult(const ExplorerResult& result) {
  const NormsResult& n = result.norms;
  // Position 0 has no place on a log axis; the ratio there is 1 by construction.
  QVector<double> x, q, k, scale, cq, ck;
  for (size_t t = 0; t < n.positions.size(); ++t) {
    if (n.positions[t] <= 0) continue;
    x.push_back(n.positions[t]);
    q.push_back(n.log10QueryRatio[t]);
    k.push_back(n.log10KeyRatio[t]);
    scale.push_back(n.logitScale[t]);
    cq.push_back(n.log10ChartQueryRatio[t]);
    ck.push_back(n.log10ChartKeyRatio[t]);
  }
  graphs_.query->setData(x, q, true);
  graphs_.key->setData(x, k, true);
  graphs_.logitScale->setData(x, scale, true);
  graphs_.chartQuery->setData(x, cq, true);
  graphs_.chartKey->setData(x, ck, true);
  plot_->rescaleAxes();
  // Flat ratios (rotations) would give a zero-height range.
  QCPRange yr = plot_->yAxis->range();
  if (yr.size() < 0.2)
    plot_->yAxis->setRange(yr.center() - 0.5, yr.center() + 0.5);
  else
    plot_->yAxis->scaleRange(1.1);
  plot_->yAxis2->scaleRange(1.15);  // log axis: a margin in log space, so extremes stay visible
  fitLogTicks(plot_->yAxis2);

  const PrecisionSummary& f32 = n.float32;
  const bool showLine = n.factorized && !f32.ok && f32.firstBadPosition > 0;
  float32Line_->setVisible(showLine);
  float32Label_->setVisible(showLine);
  if (showLine) {
    const double p = static_cast<double>(f32.firstBadPosition);
    float32Line_->point1->setCoords(p, 0);
    float32Line_->point2->setCoords(p, 1);
    float32Label_->position->setCoords(p, 0.98);
    float32Label_->setText(tr("float32 %1 from p = %2 ")
                               .arg(QString::fromStdString(f32.problem))
                               .arg(f32.firstBadPosition));
  }
  QString text;
  if (!n.factorized) text = tr("No factorized form: q and k are not transformed (ratios are 1). ");
  text += f32.ok ? tr("float32: fine up to the last position.")
                 : tr("float32: %1 from position %2 — %3")
                       .arg(QString::fromStdString(f32.problem))
                       .arg(f32.firstBadPosition)
                       .arg(QString::fromStdString(f32.detail));
  text += tr(" Light-cone chart (L = %1): every ratio below %2 at any position.")
              .arg(n.chartL, 0, 'g', 6)
              .arg(n.chartNormBound, 0, 'g', 4);
  precision_->setText(text);
  plot_->replot();
}

}  // namespace poslab::ui
