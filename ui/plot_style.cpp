#include "plot_style.h"

#include <qcustomplot.h>

#include <cmath>

namespace poslab::ui {

namespace {
// Below this upper/lower ratio a log axis has at most one power of ten: label plain numbers.
constexpr double kMinDecadeRatio = 20;
}  // namespace

QColor seriesColor(int index) {
  // Tableau-10: distinguishable and printable.
  static const QColor colors[] = {
      QColor(31, 119, 180),  QColor(255, 127, 14), QColor(44, 160, 44),   QColor(214, 39, 40),
      QColor(148, 103, 189), QColor(140, 86, 75),  QColor(227, 119, 194), QColor(127, 127, 127),
      QColor(188, 189, 34),  QColor(23, 190, 207)};
  return colors[index % 10];
}

void stylePlot(QCustomPlot* plot, const QString& xLabel, const QString& yLabel) {
  plot->setAntialiasedElements(QCP::aeAll);
  // One polyline per graph instead of a line per segment: a 32,768-lag kernel replots in ~4 ms
  // instead of ~45 ms (docs/performance/gui_responsiveness.md); joins of thick pens look the same.
  plot->setPlottingHint(QCP::phFastPolylines, true);
  plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot->xAxis->setLabel(xLabel);
  plot->yAxis->setLabel(yLabel);
  plot->setMinimumSize(360, 260);
}

void placeLegendRight(QCustomPlot* plot) {
  plot->legend->setVisible(true);
  if (plot->plotLayout()->columnCount() >= 2) return;
  plot->axisRect()->insetLayout()->take(plot->legend);  // take, not remove: remove deletes it
  // A column beside the axes: the legend on top, an empty element below takes the spare height
  // (a legend given the whole height would spread its entries over it).
  auto* column = new QCPLayoutGrid;
  plot->plotLayout()->addElement(0, 1, column);
  plot->plotLayout()->setColumnStretchFactor(1, 0.001);  // only as wide as the legend needs
  column->addElement(0, 0, plot->legend);
  column->addElement(1, 0, new QCPLayoutElement(plot));
  column->setRowStretchFactor(0, 0.001);
  plot->legend->setMargins(QMargins(6, 4, 6, 4));
  plot->legend->setBorderPen(Qt::NoPen);
  plot->legend->setLayer("legend");
}

void placeLegendTop(QCustomPlot* plot) {
  plot->legend->setVisible(true);
  if (plot->plotLayout()->rowCount() >= 2) return;
  plot->axisRect()->insetLayout()->take(plot->legend);
  plot->plotLayout()->insertRow(0);
  plot->plotLayout()->addElement(0, 0, plot->legend);
  plot->plotLayout()->setRowStretchFactor(0, 0.001);
  plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);  // entries side by side
  plot->legend->setBorderPen(Qt::NoPen);
  plot->legend->setMargins(QMargins(4, 0, 4, 0));
  plot->legend->setLayer("legend");
}

void setLogAxis(QCPAxis* axis, bool log) {
  if (log) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    axis->setNumberFormat("eb");  // 10^n
    axis->setNumberPrecision(0);
  } else {
    axis->setScaleType(QCPAxis::stLinear);
    axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    axis->setNumberFormat("gb");
    axis->setNumberPrecision(6);
  }
}

void fitLogTicks(QCPAxis* axis) {
  if (axis->scaleType() != QCPAxis::stLogarithmic) return;
  const QCPRange r = axis->range();
  if (r.lower > 0 && r.upper / r.lower < kMinDecadeRatio) {
    axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    axis->setNumberFormat("g");
    axis->setNumberPrecision(3);
  } else {
    setLogAxis(axis, true);
  }
}

Heatmap addAttentionHeatmap(QCustomPlot* plot, const QString& scaleLabel) {
  stylePlot(plot, QObject::tr("key position j"), QObject::tr("query position i"));
  plot->yAxis->setRangeReversed(true);  // matrix orientation: row 0 at the top
  Heatmap h;
  h.map = new QCPColorMap(plot->xAxis, plot->yAxis);
  h.map->setInterpolate(false);
  h.scale = new QCPColorScale(plot);
  h.scale->setType(QCPAxis::atRight);
  h.scale->axis()->setLabel(scaleLabel);
  plot->plotLayout()->addElement(0, 1, h.scale);
  h.map->setColorScale(h.scale);
  // Viridis (QCustomPlot 2.1 lacks it): perceptually uniform, readable in grey.
  QCPColorGradient gradient;
  gradient.setColorStopAt(0.0, QColor(68, 1, 84));
  gradient.setColorStopAt(0.25, QColor(59, 82, 139));
  gradient.setColorStopAt(0.5, QColor(33, 145, 140));
  gradient.setColorStopAt(0.75, QColor(94, 201, 98));
  gradient.setColorStopAt(1.0, QColor(253, 231, 37));
  gradient.setNanHandling(QCPColorGradient::nhTransparent);  // above the diagonal (j > i)
  h.map->setGradient(gradient);
  auto* margins = new QCPMarginGroup(plot);
  plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
  h.scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
  return h;
}

void setHeatmapColorRange(const Heatmap& heatmap, double largest, bool log) {
  constexpr double kLogColorDecades = 4;
  log = log && largest > 0;
  heatmap.map->setDataScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  setLogAxis(heatmap.scale->axis(), log);
  if (log)
    heatmap.map->setDataRange(QCPRange(largest * std::pow(10.0, -kLogColorDecades), largest));
  else
    heatmap.map->rescaleDataRange(true);
}

}  // namespace poslab::ui
