#include "presentation/plot_scaling.h"

#include <qcustomplot.h>

namespace poslab::ui {

namespace {

// The width a graph was made with, kept on the graph while it is scaled.
constexpr const char* kBaseWidth = "poslabBaseWidth";

QFont scaled(QFont font, double factor) {
  if (font.pointSizeF() > 0)
    font.setPointSizeF(font.pointSizeF() * factor);
  else
    font.setPixelSize(static_cast<int>(font.pixelSize() * factor + 0.5));
  return font;
}

QPen scaled(QPen pen, double factor) {
  pen.setWidthF(std::max(pen.widthF(), 1.0) * factor);
  return pen;
}

// Each plottable's pen at factor times the width it was made with (once per plottable).
void scaleGraphs(QCustomPlot* plot, double factor) {
  for (int k = 0; k < plot->plottableCount(); ++k) {
    QCPAbstractPlottable* p = plot->plottable(k);
    if (p->property(kBaseWidth).isValid()) continue;
    p->setProperty(kBaseWidth, p->pen().widthF());
    p->setPen(scaled(p->pen(), factor));
  }
}

void unscaleGraphs(QCustomPlot* plot) {
  for (int k = 0; k < plot->plottableCount(); ++k) {
    QCPAbstractPlottable* p = plot->plottable(k);
    const QVariant base = p->property(kBaseWidth);
    if (!base.isValid()) continue;
    QPen pen = p->pen();
    pen.setWidthF(base.toDouble());
    p->setPen(pen);
    p->setProperty(kBaseWidth, QVariant());
  }
}

}  // namespace

PlotScaling::~PlotScaling() {
  restore();
}

void PlotScaling::apply(QWidget* root, double factor) {
  restore();
  factor_ = factor;
  for (QCustomPlot* plot : root->findChildren<QCustomPlot*>()) {
    PlotLook look;
    look.plot = plot;
    for (QCPAxis* a : plot->axisRect()->axes()) {
      look.axes.push_back(
          {a->labelFont(), a->tickLabelFont(), a->basePen(), a->tickPen(), a->subTickPen()});
      a->setLabelFont(scaled(a->labelFont(), factor));
      a->setTickLabelFont(scaled(a->tickLabelFont(), factor));
      a->setBasePen(scaled(a->basePen(), factor));
      a->setTickPen(scaled(a->tickPen(), factor));
      a->setSubTickPen(scaled(a->subTickPen(), factor));
    }
    look.legend = plot->legend->font();
    plot->legend->setFont(scaled(plot->legend->font(), factor));
    for (int k = 0; k < plot->legend->itemCount(); ++k)
      if (auto* item = plot->legend->item(k)) item->setFont(plot->legend->font());
    scaleGraphs(plot, factor);
    look.beforeReplot = QObject::connect(plot, &QCustomPlot::beforeReplot, plot, [plot, factor] {
      scaleGraphs(plot, factor);
      for (int k = 0; k < plot->legend->itemCount(); ++k)
        if (auto* item = plot->legend->item(k)) item->setFont(plot->legend->font());
    });
    plot->replot(QCustomPlot::rpQueuedReplot);
    plots_.push_back(std::move(look));
  }
}

void PlotScaling::restore() {
  for (PlotLook& look : plots_) {
    QObject::disconnect(look.beforeReplot);
    QCustomPlot* plot = look.plot;
    if (!plot) continue;
    const QList<QCPAxis*> axes = plot->axisRect()->axes();
    for (int k = 0; k < axes.size() && k < static_cast<int>(look.axes.size()); ++k) {
      const AxisLook& a = look.axes[static_cast<size_t>(k)];
      axes[k]->setLabelFont(a.label);
      axes[k]->setTickLabelFont(a.ticks);
      axes[k]->setBasePen(a.base);
      axes[k]->setTickPen(a.tick);
      axes[k]->setSubTickPen(a.subTick);
    }
    plot->legend->setFont(look.legend);
    for (int k = 0; k < plot->legend->itemCount(); ++k)
      if (auto* item = plot->legend->item(k)) item->setFont(look.legend);
    unscaleGraphs(plot);
    plot->replot(QCustomPlot::rpQueuedReplot);
  }
  plots_.clear();
}

}  // namespace poslab::ui
