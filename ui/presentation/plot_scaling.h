// Plots drawn for a projector: every QCustomPlot in a window with its fonts (axis labels, tick
// labels, legend) and its lines (graphs, axes) made `factor` times larger, and put back exactly
// as they were. Views rebuild their graphs on every result, so a graph made after apply() is
// scaled too, just before it is drawn (QCustomPlot::beforeReplot).
#pragma once

#include <QFont>
#include <QMetaObject>
#include <QPen>
#include <QPointer>

#include <vector>

class QCustomPlot;
class QWidget;

namespace poslab::ui {

class PlotScaling {
 public:
  PlotScaling() = default;
  ~PlotScaling();
  PlotScaling(const PlotScaling&) = delete;
  PlotScaling& operator=(const PlotScaling&) = delete;

  // Scales every plot under `root` (restores a previous apply first).
  void apply(QWidget* root, double factor);
  // Puts every plot back as it was before apply() (fonts, axis pens) and graphs back to the
  // width they were made with.
  void restore();

 private:
  struct AxisLook {
    QFont label, ticks;
    QPen base, tick, subTick;
  };
  struct PlotLook {
    QPointer<QCustomPlot> plot;
    std::vector<AxisLook> axes;  // in axisRect()->axes() order
    QFont legend;
    QMetaObject::Connection beforeReplot;
  };

  std::vector<PlotLook> plots_;
  double factor_ = 1;
};

}  // namespace poslab::ui
