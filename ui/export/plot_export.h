// Exporting plots: an image (PNG, SVG or PDF, chosen by the file's extension) and the plotted
// data as CSV; a right-click menu offering both on every QCustomPlot of a window. Every write
// goes through QSaveFile, so a failed export leaves any existing file as it was, and says why.
#pragma once

#include <QObject>
#include <QString>

class QCustomPlot;
class QWidget;

namespace poslab::ui {

enum class ImageFormat { Png, Svg, Pdf };

// A plottable's column name in CSV exports when it has this property (a stable key such as a
// basis name "d*exp*cos"); otherwise its legend name.
inline constexpr const char* kCsvKeyProperty = "poslabCsvKey";

// The format a path's extension names (case-insensitive .png/.svg/.pdf); false otherwise.
bool imageFormatFor(const QString& path, ImageFormat* format);

struct ImageExportOptions {
  int width = 0;  // logical pixels; 0: the plot's current size on screen
  int height = 0;
  double scale = 0;  // PNG pixels per logical pixel; 0: the screen's device pixel ratio (>= 1)
};

// Writes the plot as PNG (QCustomPlot::toPixmap at `scale`, as savePng), SVG (QSvgGenerator
// painted by QCustomPlot::toPainter) or PDF (QCustomPlot::savePdf). Returns an empty string on
// success, else what went wrong ("unknown image format '.bmp' ...", "cannot write ...: reason").
QString exportPlotImage(QCustomPlot* plot, const QString& path,
                        const ImageExportOptions& options = {});

// The plot's data as CSV text. Graphs and bars: a header row, then one row per index; graphs that
// share their x values share one x column, otherwise each graph has its own x column. The header
// names each column with the axis label (which carries the unit) and the graph's name. Colour
// maps: rows "i,j,x,y,value". A bar chart with text tick labels gets a "label" column.
QString plotCsv(QCustomPlot* plot);
// Writes plotCsv() to a file; empty string on success, else why not (an empty plot is an error).
QString exportPlotCsv(QCustomPlot* plot, const QString& path);

// Asks for a file name (the dialog offers PNG, SVG, PDF) and exports; errors in a message box.
// `baseName` proposes the file name. Returns the written path, or empty when cancelled/failed.
QString exportPlotImageInteractive(QWidget* parent, QCustomPlot* plot, const QString& baseName);
QString exportPlotCsvInteractive(QWidget* parent, QCustomPlot* plot, const QString& baseName);

// A readable file stem for a plot: its objectName without a "Plot" suffix ("kernelPlot" ->
// "kernel"), else "plot".
QString plotBaseName(QCustomPlot* plot);

// Gives every QCustomPlot inside `window` (now or created later) a context menu with
// "Export image…" and "Export data (CSV)…". One application-wide event filter per window,
// owned by (and removed with) the window.
class PlotContextMenus : public QObject {
  Q_OBJECT
 public:
  explicit PlotContextMenus(QWidget* window);
  ~PlotContextMenus() override;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QWidget* window_;
};

}  // namespace poslab::ui
