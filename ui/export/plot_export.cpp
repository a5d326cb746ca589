#include "export/plot_export.h"
#include "error_report.h"

#include <qcustomplot.h>
#include <QApplication>
#include <QBuffer>
#include <QContextMenuEvent>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QPointer>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <vector>

namespace poslab::ui {

namespace {
constexpr int kFallbackWidth = 800;  // logical pixels, for a plot that was never laid out
constexpr int kFallbackHeight = 600;

// The directory the last export went to, so a series of exports lands together.
QString& lastExportDir() {
  static QString dir = QDir::homePath();
  return dir;
}

// Writes bytes atomically: the target is replaced only when everything was written.
QString writeAtomically(const QString& path, const QByteArray& bytes) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    return QObject::tr("cannot write %1: %2").arg(path, file.errorString());
  if (file.write(bytes) != bytes.size()) {
    const QString why = file.errorString();
    file.cancelWriting();
    return QObject::tr("cannot write %1: %2").arg(path, why);
  }
  if (!file.commit()) return QObject::tr("cannot write %1: %2").arg(path, file.errorString());
  return {};
}

QSize exportSize(QCustomPlot* plot, const ImageExportOptions& o) {
  int w = o.width > 0 ? o.width : plot->width();
  int h = o.height > 0 ? o.height : plot->height();
  if (w <= 0 || h <= 0) return {kFallbackWidth, kFallbackHeight};
  return {w, h};
}

QString csvField(const QString& text) {
  if (!text.contains(',') && !text.contains('"') && !text.contains('\n')) return text;
  QString quoted = text;
  quoted.replace('"', "\"\"");
  return '"' + quoted + '"';
}

QString number(double v) {
  return std::isnan(v) ? QStringLiteral("nan") : QString::number(v, 'g', 17);
}

QString axisLabel(const QCPAxis* axis, const char* fallback) {
  const QString l = axis ? axis->label().simplified() : QString();
  return l.isEmpty() ? QString::fromLatin1(fallback) : l;
}

// One curve's points, and what its columns are called.
struct Series {
  QString name;    // the plottable's legend name
  QString xLabel;  // its key axis label (with the unit)
  QString yLabel;  // its value axis label
  QVector<double> x, y;
  QCPAxis* keyAxis = nullptr;
};

template <typename Container>
void fillSeries(Series& s, const Container& data) {
  s.x.reserve(data.size());
  s.y.reserve(data.size());
  for (auto it = data.constBegin(); it != data.constEnd(); ++it) {
    s.x.push_back(it->key);  // for curves too: key and value, not the parameter t
    s.y.push_back(it->value);
  }
}

std::vector<Series> collectSeries(QCustomPlot* plot) {
  std::vector<Series> out;
  for (int n = 0; n < plot->plottableCount(); ++n) {
    QCPAbstractPlottable* p = plot->plottable(n);
    Series s;
    const QVariant key = p->property(kCsvKeyProperty);
    s.name = key.isValid() ? key.toString() : p->name().simplified();
    if (s.name.isEmpty()) s.name = QObject::tr("series %1").arg(n + 1);
    s.keyAxis = p->keyAxis();
    s.xLabel = axisLabel(p->keyAxis(), "x");
    s.yLabel = axisLabel(p->valueAxis(), "y");
    if (auto* g = qobject_cast<QCPGraph*>(p))
      fillSeries(s, *g->data());
    else if (auto* b = qobject_cast<QCPBars*>(p))
      fillSeries(s, *b->data());
    else if (auto* c = qobject_cast<QCPCurve*>(p))
      fillSeries(s, *c->data());
    else
      continue;  // colour maps are written separately
    out.push_back(std::move(s));
  }
  return out;
}

QString seriesCsv(const std::vector<Series>& series) {
  bool sharedX = true;
  for (const Series& s : series) sharedX = sharedX && s.x == series.front().x;
  // Bars with text ticks (e.g. sector names) get their labels as a column.
  QMap<double, QString> tickLabels;
  if (sharedX && series.front().keyAxis) {
    if (auto text = series.front().keyAxis->ticker().dynamicCast<QCPAxisTickerText>())
      tickLabels = text->ticks();
  }
  QStringList header;
  if (sharedX) {
    header << csvField(series.front().xLabel);
    if (!tickLabels.isEmpty()) header << QStringLiteral("label");
    for (const Series& s : series) header << csvField(s.name + " [" + s.yLabel + "]");
  } else {
    for (const Series& s : series)
      header << csvField(s.xLabel + " [" + s.name + "]")
             << csvField(s.name + " [" + s.yLabel + "]");
  }
  QString text = header.join(',') + '\n';
  qsizetype rows = 0;
  for (const Series& s : series) rows = std::max(rows, s.x.size());
  for (qsizetype r = 0; r < rows; ++r) {
    QStringList row;
    if (sharedX) {
      row << number(series.front().x[r]);
      if (!tickLabels.isEmpty()) row << csvField(tickLabels.value(series.front().x[r]));
    }
    for (const Series& s : series) {
      const bool has = r < s.x.size();
      if (!sharedX) row << (has ? number(s.x[r]) : QString());
      row << (has ? number(s.y[r]) : QString());
    }
    text += row.join(',') + '\n';
  }
  return text;
}

QString colorMapCsv(QCPColorMap* map) {
  QCPColorMapData* d = map->data();
  QString value = map->name().simplified();
  if (map->colorScale()) value = axisLabel(map->colorScale()->axis(), "value");
  if (value.isEmpty()) value = QStringLiteral("value");
  QString text = QStringLiteral("i,j,%1,%2,%3\n")
                     .arg(csvField(axisLabel(map->keyAxis(), "x")),
                          csvField(axisLabel(map->valueAxis(), "y")), csvField(value));
  text.reserve(static_cast<qsizetype>(d->keySize()) * d->valueSize() * 24);
  for (int j = 0; j < d->valueSize(); ++j) {
    for (int i = 0; i < d->keySize(); ++i) {
      double x = 0, y = 0;
      d->cellToCoord(i, j, &x, &y);
      text += QString::number(i) + ',' + QString::number(j) + ',' + number(x) + ',' + number(y) +
              ',' + number(d->cell(i, j)) + '\n';
    }
  }
  return text;
}

QString proposedPath(const QString& baseName, const QString& extension) {
  return QDir(lastExportDir()).filePath(baseName + '.' + extension);
}

// The dialog's chosen file, with the selected filter's extension when the user typed none.
QString withExtension(QString path, const QString& filter) {
  if (path.isEmpty() || !QFileInfo(path).suffix().isEmpty()) return path;
  const int star = filter.indexOf("*.");
  if (star >= 0) path += filter.mid(star + 1, filter.indexOf(')', star) - star - 1);
  return path;
}
}  // namespace

bool imageFormatFor(const QString& path, ImageFormat* format) {
  const QString ext = QFileInfo(path).suffix().toLower();
  if (ext == "png")
    *format = ImageFormat::Png;
  else if (ext == "svg")
    *format = ImageFormat::Svg;
  else if (ext == "pdf")
    *format = ImageFormat::Pdf;
  else
    return false;
  return true;
}

QString exportPlotImage(QCustomPlot* plot, const QString& path, const ImageExportOptions& options) {
  ImageFormat format;
  if (!imageFormatFor(path, &format))
    return QObject::tr("unknown image format '%1' for %2: use .png, .svg or .pdf")
        .arg(QFileInfo(path).suffix().isEmpty() ? QObject::tr("(no extension)")
                                                : '.' + QFileInfo(path).suffix(),
             path);
  const QSize size = exportSize(plot, options);
  QByteArray bytes;
  switch (format) {
    case ImageFormat::Png: {
      const double scale =
          options.scale > 0 ? options.scale : std::max(1.0, plot->devicePixelRatioF());
      // As savePng does, but into memory so that the file write is atomic.
      const QPixmap pixmap = plot->toPixmap(size.width(), size.height(), scale);
      QBuffer buffer(&bytes);
      buffer.open(QIODevice::WriteOnly);
      if (pixmap.isNull() || !pixmap.save(&buffer, "PNG"))
        return QObject::tr("cannot render %1 as PNG (%2 x %3 at scale %4)")
            .arg(path)
            .arg(size.width())
            .arg(size.height())
            .arg(scale);
      break;
    }
    case ImageFormat::Svg: {
      QBuffer buffer(&bytes);
      buffer.open(QIODevice::WriteOnly);
      QSvgGenerator svg;
      svg.setOutputDevice(&buffer);
      svg.setSize(size);
      svg.setViewBox(QRect(QPoint(0, 0), size));
      // Font sizes in the layout's pixels (9 pt = 12 px at 96 dpi), so text fits its boxes.
      svg.setResolution(plot->logicalDpiX());
      svg.setTitle(plot->objectName());
      svg.setDescription(QObject::tr("PosLab plot"));
      QCPPainter painter;
      if (!painter.begin(&svg)) return QObject::tr("cannot render %1 as SVG").arg(path);
      painter.setMode(QCPPainter::pmVectorized);  // as savePdf: no pixmap caching of layers
      plot->toPainter(&painter, size.width(), size.height());
      painter.end();
      break;
    }
    case ImageFormat::Pdf: {
      // savePdf only writes to a named file: render into a private directory, then move the bytes.
      QTemporaryDir dir;
      if (!dir.isValid())
        return QObject::tr("cannot write %1: no temporary directory (%2)")
            .arg(path, dir.errorString());
      const QString tmp = dir.filePath("plot.pdf");
      if (!plot->savePdf(tmp, size.width(), size.height(), QCP::epAllowCosmetic, "PosLab",
                         plot->objectName()))
        return QObject::tr("cannot render %1 as PDF").arg(path);
      QFile f(tmp);
      if (!f.open(QIODevice::ReadOnly)) return QObject::tr("cannot render %1 as PDF").arg(path);
      bytes = f.readAll();
      break;
    }
  }
  return writeAtomically(path, bytes);
}

QString plotCsv(QCustomPlot* plot) {
  QString text;
  const std::vector<Series> series = collectSeries(plot);
  if (!series.empty()) text = seriesCsv(series);
  for (int n = 0; n < plot->plottableCount(); ++n) {
    if (auto* map = qobject_cast<QCPColorMap*>(plot->plottable(n))) {
      if (!text.isEmpty()) text += '\n';  // a blank line between tables
      text += colorMapCsv(map);
    }
  }
  return text;
}

QString exportPlotCsv(QCustomPlot* plot, const QString& path) {
  bool empty = true;
  for (int n = 0; n < plot->plottableCount() && empty; ++n) {
    QCPAbstractPlottable* p = plot->plottable(n);
    if (auto* map = qobject_cast<QCPColorMap*>(p))
      empty = map->data()->isEmpty();
    else if (auto* g = qobject_cast<QCPGraph*>(p))
      empty = g->data()->isEmpty();
    else if (auto* b = qobject_cast<QCPBars*>(p))
      empty = b->data()->isEmpty();
    else if (auto* c = qobject_cast<QCPCurve*>(p))
      empty = c->data()->isEmpty();
  }
  if (empty) return QObject::tr("the plot has no data to export yet");
  return writeAtomically(path, plotCsv(plot).toUtf8());
}

QString plotBaseName(QCustomPlot* plot) {
  QString name = plot->objectName();
  if (name.endsWith("Plot") && name.size() > 4) name.chop(4);
  return name.isEmpty() ? QStringLiteral("plot") : name;
}

QString exportPlotImageInteractive(QWidget* parent, QCustomPlot* plot, const QString& baseName) {
  QString filter;
  QString path = QFileDialog::getSaveFileName(
      parent, QObject::tr("Export image"), proposedPath(baseName, "png"),
      QObject::tr("PNG image (*.png);;SVG vector image (*.svg);;PDF document (*.pdf)"), &filter);
  path = withExtension(path, filter);
  if (path.isEmpty()) return {};
  const QString problem = exportPlotImage(plot, path);
  if (!problem.isEmpty()) {
    showError(parent, {QObject::tr("Export image"), problem}, QStringLiteral("exportError"));
    return {};
  }
  lastExportDir() = QFileInfo(path).absolutePath();
  return path;
}

QString exportPlotCsvInteractive(QWidget* parent, QCustomPlot* plot, const QString& baseName) {
  QString filter;
  QString path = QFileDialog::getSaveFileName(parent, QObject::tr("Export data"),
                                              proposedPath(baseName, "csv"),
                                              QObject::tr("CSV table (*.csv)"), &filter);
  path = withExtension(path, filter);
  if (path.isEmpty()) return {};
  const QString problem = exportPlotCsv(plot, path);
  if (!problem.isEmpty()) {
    showError(parent, {QObject::tr("Export data"), problem}, QStringLiteral("exportError"));
    return {};
  }
  lastExportDir() = QFileInfo(path).absolutePath();
  return path;
}

PlotContextMenus::PlotContextMenus(QWidget* window) : QObject(window), window_(window) {
  qApp->installEventFilter(this);
}

PlotContextMenus::~PlotContextMenus() {
  qApp->removeEventFilter(this);
}

bool PlotContextMenus::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() != QEvent::ContextMenu) return false;
  auto* plot = qobject_cast<QCustomPlot*>(watched);
  if (!plot || plot->window() != window_) return false;
  auto* e = static_cast<QContextMenuEvent*>(event);
  auto* menu = new QMenu(plot);
  menu->setObjectName("plotContextMenu");
  menu->setAttribute(Qt::WA_DeleteOnClose);
  QPointer<QCustomPlot> target(plot);
  QAction* image = menu->addAction(tr("Export image…"));
  image->setObjectName("exportImage");
  connect(image, &QAction::triggered, plot, [target] {
    if (target) exportPlotImageInteractive(target->window(), target, plotBaseName(target));
  });
  QAction* data = menu->addAction(tr("Export data (CSV)…"));
  data->setObjectName("exportData");
  connect(data, &QAction::triggered, plot, [target] {
    if (target) exportPlotCsvInteractive(target->window(), target, plotBaseName(target));
  });
  menu->popup(e->globalPos());  // not exec(): the event loop (and tests) keep running
  return true;
}

}  // namespace poslab::ui
