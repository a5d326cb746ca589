// Exports, offscreen: a plot as PNG (at a chosen scale), SVG and PDF; its data as CSV whose
// numbers are the plotted ones; a colour map as i,j,value rows; failures name the problem and
// leave existing files alone; every plot has the right-click export menu; the run report holds
// every training plot, the latest evaluation per family and length, and a loadable setup.
// POSLAB_EXPORT_OUT=DIR keeps the files (an existing, empty directory).
#include <qcustomplot.h>
#include <QApplication>
#include <QContextMenuEvent>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QMenu>
#include <QSpinBox>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "app_shell.h"
#include "explorer/attention_view.h"
#include "explorer/diagnostics_view.h"
#include "explorer/explorer_controller.h"
#include "explorer/kernel_view.h"
#include "explorer/parameter_panel.h"
#include "export/plot_export.h"
#include "export/run_report.h"
#include "main_window.h"
#include "menus/window_commands.h"
#include "train/preset.h"
#include "training/training_panel.h"

using namespace poslab::ui;

namespace {
constexpr int kWaitMs = 60000;

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Splits a CSV line without quoted commas (our numbers never have any).
QStringList cells(const QString& line) {
  return line.split(',');
}

// Fraction of pixels that are not the background (white).
double inkFraction(const QImage& image) {
  qint64 ink = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x)
      if (image.pixelColor(x, y) != QColor(Qt::white)) ++ink;
  return static_cast<double>(ink) / (static_cast<double>(image.width()) * image.height());
}
}  // namespace

class TestExport : public QObject {
  Q_OBJECT

  std::unique_ptr<AppShell> shell_;
  MainWindow* window_ = nullptr;
  QTemporaryDir dir_;

  void settle(ExplorerView view) {
    ExplorerController* c = shell_->explorer();
    QTRY_VERIFY2_WITH_TIMEOUT(!c->busy() && c->isUpToDate(view), "view did not settle", kWaitMs);
  }
  // POSLAB_EXPORT_OUT=DIR keeps the exported files there, to look at.
  QString path(const QString& name) const {
    const QString keep = qEnvironmentVariable("POSLAB_EXPORT_OUT");
    return keep.isEmpty() ? dir_.filePath(name) : QDir(keep).filePath(name);
  }

 private Q_SLOTS:
  void init() {
    shell_ = std::make_unique<AppShell>();
    window_ = &shell_->window();
    window_->show();
  }
  void cleanup() {
    shell_.reset();
    window_ = nullptr;
  }

  void plotAsPngSvgPdf() {
    QVERIFY(window_->parameters()->setFamily("jordan-exact"));
    window_->showView(WindowView::Kernel);
    settle(ExplorerView::Kernel);
    QCustomPlot* plot = window_->kernelView()->plot();
    QCOMPARE(exportPlotImage(plot, path("k.png"), {600, 400, 2.0}), QString());
    const QImage png(path("k.png"));
    QCOMPARE(png.size(), QSize(1200, 800));  // scale 2: twice the pixels each way
    QVERIFY2(inkFraction(png) > 0.02, "the PNG is blank");

    QCOMPARE(exportPlotImage(plot, path("k.svg"), {600, 400, 0}), QString());
    const QByteArray svg = readAll(path("k.svg"));
    QVERIFY(svg.contains("<svg"));
    QVERIFY(svg.count("<path") + svg.count("<polyline") > 10);  // axes, ticks and curves
    QSvgRenderer renderer(path("k.svg"));
    QVERIFY(renderer.isValid());
    QCOMPARE(renderer.viewBox(), QRect(0, 0, 600, 400));

    QCOMPARE(exportPlotImage(plot, path("k.PDF"), {600, 400, 0}), QString());  // case-insensitive
    const QByteArray pdf = readAll(path("k.PDF"));
    QVERIFY(pdf.startsWith("%PDF"));
    QVERIFY(pdf.size() > 2000);
  }

  // The kernel column holds exactly the plotted K(d); the x column is the lag with its unit.
  void kernelCsvHasThePlottedNumbers() {
    QVERIFY(window_->parameters()->setFamily("damped-rope"));
    settle(ExplorerView::Kernel);
    QCustomPlot* plot = window_->kernelView()->plot();
    QCOMPARE(exportPlotCsv(plot, path("k.csv")), QString());
    const QStringList lines =
        QString::fromUtf8(readAll(path("k.csv"))).split('\n', Qt::SkipEmptyParts);
    const QStringList header = cells(lines.front());
    QCOMPARE(header.size(), 1 + plot->graphCount());  // the graphs share one x column
    QVERIFY2(header[0].contains("lag") && header[0].contains("positions"), qPrintable(header[0]));
    const int kernelColumn =
        static_cast<int>(header.indexOf(QRegularExpression("^kernel K\\(d\\).*")));
    QVERIFY2(kernelColumn > 0, qPrintable(lines.front()));
    QCOMPARE(lines.size(), 1 + 256);
    const QCPGraph* kernel = window_->kernelView()->kernelGraph();
    for (int row : {1, 21, 200}) {
      const QStringList c = cells(lines[row]);
      const auto point = kernel->data()->at(row - 1);
      QCOMPARE(c[0].toDouble(), point->key);
      QCOMPARE(c[kernelColumn].toDouble(), point->value);  // 17 digits: exact round trip
    }
    // The exp*cos basis column is e^(-gamma d) cos(omega d) at d = 20.
    const int basis = static_cast<int>(header.indexOf(QRegularExpression("^exp\\*cos .*")));
    QVERIFY(basis > 0);
    const auto values = window_->parameters()->values();
    const QStringList row20 = cells(lines[21]);
    QCOMPARE(row20[0].toDouble(), 20.0);
    QVERIFY(std::abs(row20[basis].toDouble() - std::exp(-values.at("gamma") * 20) *
                                                   std::cos(values.at("omega") * 20)) < 1e-12);
  }

  void attentionCsvHasOneRowPerCell() {
    QVERIFY(window_->parameters()->setFamily("alibi"));
    window_->showView(WindowView::Attention);
    settle(ExplorerView::Attention);
    QCustomPlot* plot = window_->attentionView()->plot();
    QCOMPARE(exportPlotCsv(plot, path("a.csv")), QString());
    const QStringList lines =
        QString::fromUtf8(readAll(path("a.csv"))).split('\n', Qt::SkipEmptyParts);
    QVERIFY2(lines.front().startsWith("i,j,key position j,query position i,\"attention weight"),
             qPrintable(lines.front()));
    QCOMPARE(lines.size(), 1 + 128 * 128);
    QCPColorMapData* data = window_->attentionView()->colorMap()->data();
    // Row order: j (the query row) outer, i (the key) inner. Query 10 attends to key 0:
    const QStringList c = cells(lines[1 + 10 * 128 + 0]);
    QCOMPARE(c[0], QString("0"));
    QCOMPARE(c[1], QString("10"));
    QCOMPARE(c[4].toDouble(), data->cell(0, 10));
    QVERIFY(c[4].toDouble() > 0);
    QCOMPARE(cells(lines[1 + 0 * 128 + 5])[4], QString("nan"));  // j > i: masked
  }

  void barsCsvCarriesTheTickLabels() {
    QVERIFY(window_->parameters()->setFamily("pj-bias"));
    window_->showView(WindowView::Diagnostics);
    settle(ExplorerView::Diagnostics);
    const QString csv = plotCsv(window_->diagnosticsView()->plot());
    const QStringList lines = csv.split('\n', Qt::SkipEmptyParts);
    QVERIFY2(cells(lines.front()).contains("label"), qPrintable(lines.front()));
    QCOMPARE(lines.size(), 1 + window_->diagnosticsView()->bars().massShare->dataCount());
  }

  void failuresSayWhyAndKeepExistingFiles() {
    settle(ExplorerView::Kernel);
    QCustomPlot* plot = window_->kernelView()->plot();
    const QString bad = exportPlotImage(plot, path("k.bmp"));
    QVERIFY2(bad.contains("unknown image format '.bmp'"), qPrintable(bad));
    QVERIFY(!QFile::exists(path("k.bmp")));
    // A directory that cannot exist (its parent is a file; tests may run as root).
    QFile old(path("keep.csv"));
    QVERIFY(old.open(QIODevice::WriteOnly));
    old.write("precious\n");
    old.close();
    const QString target = path("keep.csv") + "/k.png";
    const QString noDir = exportPlotImage(plot, target);
    QVERIFY2(noDir.startsWith("cannot write " + target + ": "), qPrintable(noDir));
    QVERIFY(noDir.size() > QString("cannot write " + target + ": ").size());  // and why
    // An empty plot has nothing to write: an existing CSV stays as it was.
    QCustomPlot empty;
    const QString nothing = exportPlotCsv(&empty, path("keep.csv"));
    QVERIFY2(nothing.contains("no data"), qPrintable(nothing));
    QCOMPARE(readAll(path("keep.csv")), QByteArray("precious\n"));
  }

  // Every plot in the window, the training plots included, offers both exports on right-click.
  void everyPlotHasTheExportMenu() {
    const auto plots = window_->findChildren<QCustomPlot*>();
    QVERIFY(plots.size() >= 8);  // five explorer views and at least three training plots
    for (QCustomPlot* plot : plots) {
      window_->showView(plot == window_->kernelView()->plot() ? WindowView::Kernel
                                                              : WindowView::Training);
      QContextMenuEvent event(QContextMenuEvent::Mouse, QPoint(20, 20),
                              plot->mapToGlobal(QPoint(20, 20)));
      QApplication::sendEvent(plot, &event);
      auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
      QVERIFY2(menu, qPrintable(plot->objectName()));
      QStringList texts;
      for (QAction* a : menu->actions()) texts << a->text();
      QCOMPARE(texts, QStringList({"Export image…", "Export data (CSV)…"}));
      menu->close();
      QTRY_VERIFY(!QApplication::activePopupWidget());
    }
  }

  void runReportHasFiguresTableAndSetup() {
    TrainingPanel* panel = window_->trainingPanel();
    window_->showView(WindowView::Training);
    QVERIFY(panel->selectFamilies({"rope", "alibi"}));
    panel->findChild<QSpinBox*>("steps")->setValue(6);
    panel->findChild<QSpinBox*>("batch")->setValue(4);
    panel->findChild<QSpinBox*>("trainLength")->setValue(16);
    panel->findChild<QLineEdit*>("evalLengths")->setText("16,32");
    panel->play();
    QTRY_VERIFY_WITH_TIMEOUT(panel->allFinished(), kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(!panel->latestEval(0).empty() && !panel->latestEval(1).empty(),
                             kWaitMs);

    QStringList written;
    const QString md = path("report/run.md");
    QVERIFY(QDir().mkpath(path("report")));
    QCOMPARE(writeRunReport(runReportOf(panel), md, &written), QString());
    const QString text = QString::fromUtf8(readAll(md));
    // One figure per plot in the panel, each a real, non-blank PNG that the report links to.
    const auto plots = panel->findChildren<QCustomPlot*>();
    // The panel gives the report every plot its views hold, each once.
    std::vector<QCustomPlot*> given = panel->plots(), found(plots.begin(), plots.end());
    std::sort(given.begin(), given.end());
    std::sort(found.begin(), found.end());
    QVERIFY(given == found);
    QCOMPARE(written.size(), 1 + plots.size() + 1);  // report, figures, setup.json
    for (QCustomPlot* plot : plots) {
      const QString png = path("report/run_figures/" + plotBaseName(plot) + ".png");
      QVERIFY2(text.contains("(run_figures/" + plotBaseName(plot) + ".png)"), qPrintable(png));
      const QImage image(png);
      QCOMPARE(image.size(), QSize(1920, 840));
    }
    QVERIFY(inkFraction(QImage(path("report/run_figures/loss.png"))) > 0.01);
    // The table: each family and length with the evaluation's own numbers.
    for (int i = 0; i < 2; ++i) {
      for (const poslab::EvalResult& e : panel->latestEval(i)) {
        const QString row =
            QString("| %1 | 6 | %2 | %3 | %4 |")
                .arg(QString::fromStdString(panel->runFamily(i)))
                .arg(e.length)
                .arg(std::isfinite(e.accuracy) ? QString::number(e.accuracy, 'f', 4) : "–",
                     QString::number(e.loss, 'f', 4));
        QVERIFY2(text.contains(row), qPrintable(row + "\n" + text));
      }
    }
    // setup.json is a preset file: it loads back as the same experiment.
    const poslab::ExperimentSpec back =
        poslab::loadPreset(path("report/run_figures/setup.json").toStdString());
    QCOMPARE(back.families, std::vector<std::string>({"rope", "alibi"}));
    QCOMPARE(back.base.run.steps, 6LL);
    QCOMPARE(back.base.task.trainLength, 16LL);
    QCOMPARE(back.base.run.evalLengths, std::vector<long long>({16, 32}));
    QVERIFY(text.contains("```json"));

    QFile file(path("plainfile"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    const QString bad = writeRunReport(runReportOf(panel), path("plainfile/r.md"));
    QVERIFY2(bad.contains("cannot create the figure folder " + path("plainfile/r_figures")),
             qPrintable(bad));
  }
};

QTEST_MAIN(TestExport)
#include "test_export.moc"
