// One look for every plot: fonts, colours, a legend beside the axes (many basis functions would
// cover the curves inside), log axes with power-of-ten tick labels.
#pragma once

#include <QColor>
#include <QString>

class QCustomPlot;
class QCPAxis;
class QCPColorMap;
class QCPColorScale;
class QCPLegend;

namespace poslab::ui {

// Distinct colours for curves; cycles.
QColor seriesColor(int index);

// Axis labels, antialiasing, interactions (drag and wheel zoom), white background.
void stylePlot(QCustomPlot* plot, const QString& xLabel, const QString& yLabel);
// Moves the legend out of the axis rect into a column on the right of the plot.
void placeLegendRight(QCustomPlot* plot);
// Moves the legend into a row above the axis rect, entries side by side (few, short names).
void placeLegendTop(QCustomPlot* plot);
// Log or linear scale; log uses a QCPAxisTickerLog.
void setLogAxis(QCPAxis* axis, bool log);
// For a log axis whose range spans about a decade or less, power-of-ten labels repeat
// ("7·10^0" twice): label plain numbers instead. Call after setting the range.
void fitLogTicks(QCPAxis* axis);

// An attention heatmap in `plot`: key position j across, query position i down (row 0 at the top),
// no interpolation, viridis colours (masked cells, j > i, are NaN and transparent) and a colour
// scale on the right labelled `scaleLabel`, aligned with the axis rect.
struct Heatmap {
  QCPColorMap* map = nullptr;
  QCPColorScale* scale = nullptr;
};
Heatmap addAttentionHeatmap(QCustomPlot* plot, const QString& scaleLabel);
// The heatmap's colour range: with `log` (and largest > 0) a log scale spanning four decades below
// the largest weight (far rows spread their mass over hundreds of keys, so on a linear scale all
// but the diagonal looks the same); otherwise linear over the data.
void setHeatmapColorRange(const Heatmap& heatmap, double largest, bool log);

}  // namespace poslab::ui
