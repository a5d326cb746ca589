// High DPI, offscreen at QT_SCALE_FACTOR=2 (set before the application starts): screenshots and
// plot exports have twice the pixels each way, and their plots are drawn (curves, the colour map)
// rather than blank or clipped. With POSLAB_HIDPI_OUT=DIR the images are kept there to look at.
#include <qcustomplot.h>
#include <QApplication>
#include <QDialog>
#include <QDir>
#include <QImage>
#include <QTemporaryDir>
#include <QtTest>

#include <set>

#include "app_shell.h"
#include "explorer/attention_view.h"
#include "explorer/explorer_controller.h"
#include "explorer/kernel_view.h"
#include "explorer/norms_view.h"
#include "explorer/parameter_panel.h"
#include "export/plot_export.h"
#include "main_window.h"
#include "menus/window_commands.h"
#include "plot_style.h"
#include "screenshot.h"

using namespace poslab::ui;

namespace {
constexpr int kWaitMs = 60000;
constexpr double kScale = 2;

// Pixels whose colour is within `tolerance` of `c` (antialiasing blends edges).
qint64 countNear(const QImage& image, const QColor& c, int tolerance = 40) {
  qint64 n = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QColor p = image.pixelColor(x, y);
      if (std::abs(p.red() - c.red()) + std::abs(p.green() - c.green()) +
              std::abs(p.blue() - c.blue()) <
          tolerance)
        ++n;
    }
  return n;
}

int distinctColours(const QImage& image) {
  std::set<QRgb> seen;
  for (int y = 0; y < image.height(); y += 2)
    for (int x = 0; x < image.width(); x += 2) seen.insert(image.pixel(x, y));
  return static_cast<int>(seen.size());
}
}  // namespace

class TestHiDpi : public QObject {
  Q_OBJECT

  QTemporaryDir tmp_;
  QString out_;

  QString outPath(const QString& name) { return QDir(out_).filePath(name); }

 private Q_SLOTS:
  void initTestCase() {
    out_ = qEnvironmentVariable("POSLAB_HIDPI_OUT", tmp_.path());
    QDir().mkpath(out_);
    AppShell shell;
    MainWindow& w = shell.window();
    QCOMPARE(w.devicePixelRatioF(), kScale);
  }

  // As `QT_SCALE_FACTOR=2 poslab --screenshot`: the PNG has twice the window's size each way.
  void screenshotsHaveTwiceThePixels_data() {
    QTest::addColumn<int>("view");
    QTest::newRow("kernel") << static_cast<int>(WindowView::Kernel);
    QTest::newRow("attention") << static_cast<int>(WindowView::Attention);
    QTest::newRow("norms") << static_cast<int>(WindowView::Norms);
  }
  void screenshotsHaveTwiceThePixels() {
    QFETCH(int, view);
    ScreenshotRequest req;
    req.view = static_cast<WindowView>(view);
    req.family = "jordan-exact";
    req.width = 1200;  // above the window's minimum size, which would otherwise win
    req.height = 800;
    req.file = outPath(QString("hidpi-%1.png").arg(QTest::currentDataTag()));
    QCOMPARE(takeScreenshot(req), QString());
    const QImage shot(req.file);
    QCOMPARE(shot.size(), QSize(2400, 1600));
  }

  // The plots themselves, grabbed at scale 2: curves in their colours, the kernel's thick pen,
  // a colour map of many shades.
  void plotsAreDrawnAtScale2() {
    AppShell shell;
    MainWindow& w = shell.window();
    w.resize(1000, 640);
    w.show();
    QVERIFY(w.parameters()->setFamily("jordan-exact"));
    ExplorerController* c = shell.explorer();
    for (WindowView v : {WindowView::Kernel, WindowView::Attention, WindowView::Norms}) {
      w.showView(v);
      const auto ev = static_cast<ExplorerView>(v);
      QTRY_VERIFY_WITH_TIMEOUT(!c->busy() && c->isUpToDate(ev), kWaitMs);
    }
    QCustomPlot* kernel = w.kernelView()->plot();
    w.showView(WindowView::Kernel);
    QCoreApplication::processEvents();
    const QImage k = kernel->grab().toImage();
    QCOMPARE(k.size(), kernel->size() * 2);
    QVERIFY2(countNear(k, Qt::black, 30) > 2000, "no thick black kernel curve");  // 3 px pen
    QVERIFY2(countNear(k, seriesColor(0)) > 300, "no basis curve in the first colour");
    k.save(outPath("hidpi-kernel-plot.png"));

    w.showView(WindowView::Attention);
    QCoreApplication::processEvents();
    const QImage a = w.attentionView()->plot()->grab().toImage();
    QCOMPARE(a.size(), w.attentionView()->plot()->size() * 2);
    QVERIFY2(distinctColours(a) > 100, "the colour map is flat or missing");
    QVERIFY2(countNear(a, QColor(68, 1, 84), 60) > 1000, "no dark viridis cells");
    a.save(outPath("hidpi-attention-plot.png"));

    // An export at the screen's scale matches it: twice the plot's logical size.
    const QString png = outPath("hidpi-norms-export.png");
    QCOMPARE(exportPlotImage(w.normsView()->plot(), png), QString());
    const QImage n(png);
    QCOMPARE(n.size(), w.normsView()->plot()->size() * 2);
    QVERIFY2(countNear(n, seriesColor(0)) > 300, "no query-norm curve in the export");
  }

  void shortcutsDialogAtScale2() {
    AppShell shell;
    MainWindow& w = shell.window();
    w.show();
    QDialog* dialog = shell.commands()->showShortcutsDialog();
    QCoreApplication::processEvents();
    const QImage shot = dialog->grab().toImage();
    QCOMPARE(shot.size(), dialog->size() * 2);
    QVERIFY2(countNear(shot, Qt::black, 60) > 2000, "no text in the dialog");
    shot.save(outPath("hidpi-shortcuts-dialog.png"));
  }
};

int main(int argc, char** argv) {
  qputenv("QT_SCALE_FACTOR", "2");
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  TestHiDpi test;
  return QTest::qExec(&test, argc, argv);
}

#include "test_hidpi.moc"
