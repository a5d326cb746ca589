// Issue 32: File > Load Encoding... as a user drives it, through its file dialog: the menu's
// action, the notice that loading runs code, the dialog (Qt's own widgets:
// Qt::AA_DontUseNativeDialogs), a .pt file typed into it and Open. The family joins the explorer's
// and the training form's lists and the views redraw with it; Cancel in the dialog changes
// nothing. And the kernel view names a loaded family's kernel as it names a built-in's: one curve,
// "kernel K(d)" (it drew a second, blank-looking "K" beneath it). The module is damped.pt of the
// torchscript.write_modules fixture (POSLAB_TS_DIR), copied into a folder of its own;
// POSLAB_ENCODING_SHOTS=DIR saves screenshots (dialog-*.png).
#include <qcustomplot.h>
#include <QAction>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include "app_shell.h"
#include "bridge/loaded_families.h"
#include "code_notice.h"
#include "explorer/explorer_controller.h"
#include "explorer/kernel_view.h"
#include "explorer/parameter_panel.h"
#include "explorer_settle.h"
#include "main_window.h"
#include "menus/load_encoding.h"
#include "menus/menu_bar.h"

using namespace poslab::ui;

namespace {
constexpr int kWaitMs = 60000;

// damped.pt's kernel, written here from tests/torchscript/write_modules.py (MATH 1.5), not read
// from the module: K(d) = e^(−γ d) · mean_b cos(ω_b d) over the D/4 = 4 blocks of head_dim 16,
// ω_b = base^(−2b/D).
double dampedKernel(double gamma, double base, double d) {
  double sum = 0;
  for (int b = 0; b < 4; ++b) sum += std::cos(std::pow(base, -2.0 * b / 16.0) * d);
  return std::exp(-gamma * d) * sum / 4.0;
}

QStringList familyItems(const QComboBox* box) {
  QStringList out;
  for (int i = 0; i < box->count(); ++i) out << box->itemData(i).toString();
  return out;
}

QStringList listItems(const QListWidget* list) {
  QStringList out;
  for (int i = 0; i < list->count(); ++i) out << list->item(i)->data(Qt::UserRole).toString();
  return out;
}

// The kernel curve's values, by lag.
QVector<QPair<double, double>> curve(const QCPGraph* g) {
  QVector<QPair<double, double>> out;
  for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
    out.push_back({it->key, it->value});
  return out;
}
}  // namespace

class TestLoadEncodingDialog : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;  // the user's folder, with their module in it
  std::unique_ptr<AppShell> shell_;
  MainWindow* w_ = nullptr;

  QComboBox* familyBox() { return w_->parameters()->findChild<QComboBox*>("family"); }
  QListWidget* trainFamilies() { return w_->findChild<QListWidget*>("trainFamilies"); }
  QString myModule() const { return dir_.filePath("my_damped.pt"); }

  void shoot(QWidget& widget, const char* name) {
    const QString dir = qEnvironmentVariable("POSLAB_ENCODING_SHOTS");
    if (dir.isEmpty()) return;
    QCoreApplication::processEvents();
    QVERIFY(widget.grab().save(QDir(dir).filePath(name)));
  }
  // The menu's action, as a user picks it; the notice answered "go on" the first time. *dialog:
  // the dialog it opens (visible); the calling test fails when none opens.
  void openDialog(QFileDialog** dialog) {
    shell_->actions().loadEncoding->trigger();
    if (QMessageBox* notice = test::visibleCodeNotice(*w_)) test::answerCodeNotice(notice, true);
    QTRY_VERIFY2_WITH_TIMEOUT(
        (*dialog = w_->findChild<QFileDialog*>("loadEncodingDialog")) && (*dialog)->isVisible(),
        "no Load Encoding dialog", kWaitMs);
  }

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // the dialog's remembered folder stays in here
    QCoreApplication::setOrganizationName("poslab-tests");
    QCoreApplication::setApplicationName("test_load_encoding_dialog");
    QCoreApplication::setAttribute(Qt::AA_DontUseNativeDialogs);  // a dialog a test can drive
    const QString fixture =
        QDir(qEnvironmentVariable("POSLAB_TS_DIR")).absoluteFilePath("damped.pt");
    QVERIFY2(QFile::exists(fixture), "POSLAB_TS_DIR has no damped.pt");
    QVERIFY(dir_.isValid());
    QVERIFY(QFile::copy(fixture, myModule()));
    // The folder the dialog remembers is gone (as after an earlier run): the dialog must not start
    // there (its list kept a stale selection that Open took for the choice).
    QSettings().setValue("loadEncodingDir", dir_.filePath("gone"));
    shell_ = std::make_unique<AppShell>();
    w_ = &shell_->window();
    w_->resize(1280, 860);
    w_->show();
    QVERIFY(w_->parameters()->setFamily("rope"));
    w_->showView(WindowView::Kernel);
    test::settleExplorer(shell_->explorer(), ExplorerView::Kernel, kWaitMs);
  }

  // Cancel in the dialog: no load starts, the lists, the family and the kernel stay as they were.
  void cancelChangesNothing() {
    const QStringList families = familyItems(familyBox());
    const QStringList training = listItems(trainFamilies());
    const std::vector<std::string> loaded = loadedFamilies().ids();
    QVERIFY(w_->kernelView()->kernelGraph());
    const auto kernel = curve(w_->kernelView()->kernelGraph());
    QSignalSpy finished(shell_->encodings(), &EncodingLoader::finished);
    QFileDialog* dialog = nullptr;
    openDialog(&dialog);
    QVERIFY(dialog);
    QVERIFY(shell_->encodings()->agreed());
    dialog->setDirectory(dir_.path());
    shoot(*dialog, "dialog-open.png");
    dialog->reject();
    QTRY_VERIFY(!w_->findChild<QFileDialog*>("loadEncodingDialog"));  // deleted on close
    QTest::qWait(200);  // a load, had one started, would have answered by now or be running
    QCOMPARE(finished.count(), 0);
    QCOMPARE(familyItems(familyBox()), families);
    QCOMPARE(listItems(trainFamilies()), training);
    QCOMPARE(loadedFamilies().ids(), loaded);
    QCOMPARE(w_->parameters()->familyId(), std::string("rope"));
    QVERIFY(!shell_->explorer()->busy());
    QCOMPARE(curve(w_->kernelView()->kernelGraph()), kernel);
  }

  // A file chosen in the dialog: loaded off the UI thread, in both lists, and the views redraw
  // with it (the kernel the formula gives; the attention map without an error).
  void chosenFileIsLoadedAndShown() {
    QVERIFY(w_->kernelView()->kernelGraph());
    const auto ropeKernel = curve(w_->kernelView()->kernelGraph());
    const QString id = "file:" + QFileInfo(myModule()).absoluteFilePath();
    QVERIFY(!familyItems(familyBox()).contains(id));
    QSignalSpy finished(shell_->encodings(), &EncodingLoader::finished);
    QFileDialog* dialog = nullptr;
    openDialog(&dialog);
    QVERIFY(dialog);
    dialog->setDirectory(dir_.path());
    auto* name = dialog->findChild<QLineEdit*>("fileNameEdit");  // Qt's own dialog's file field
    QVERIFY2(name, "the dialog is not Qt's widget dialog");
    name->clear();
    QTest::keyClicks(name, "my_damped.pt");
    shoot(*dialog, "dialog-chosen.png");
    auto* buttons = dialog->findChild<QDialogButtonBox*>("buttonBox");
    QVERIFY(buttons && buttons->button(QDialogButtonBox::Open));
    buttons->button(QDialogButtonBox::Open)->click();
    QVERIFY(finished.count() == 1 || finished.wait(kWaitMs));
    QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
    QCOMPARE(finished.at(0).at(1).toString(), id);

    QVERIFY(familyItems(familyBox()).contains(id));
    QCOMPARE(QString::fromStdString(w_->parameters()->familyId()), id);
    QVERIFY(listItems(trainFamilies()).contains(id));

    test::settleExplorer(shell_->explorer(), ExplorerView::Kernel, kWaitMs);
    QVERIFY2(shell_->explorer()->lastError().isEmpty(),
             qPrintable(shell_->explorer()->lastError()));
    const QCPGraph* kernel = w_->kernelView()->kernelGraph();
    QVERIFY(kernel && kernel->dataCount() >= 16);
    const double gamma = w_->parameters()->values().at("gamma");
    for (auto it = kernel->data()->constBegin(); it != kernel->data()->constEnd(); ++it)
      QVERIFY2(std::abs(it->value - dampedKernel(gamma, 10000, it->key)) <= 1e-12,
               qPrintable(QString("K(%1) = %2").arg(it->key).arg(it->value)));
    QVERIFY2(curve(kernel) != ropeKernel, "the kernel view did not redraw");
    shoot(*w_, "dialog-loaded-kernel.png");

    w_->showView(WindowView::Attention);
    test::settleExplorer(shell_->explorer(), ExplorerView::Attention, kWaitMs);
    QVERIFY2(shell_->explorer()->lastError().isEmpty(),
             qPrintable(shell_->explorer()->lastError()));
    shoot(*w_, "dialog-loaded-attention.png");
    w_->showView(WindowView::Kernel);
    test::settleExplorer(shell_->explorer(), ExplorerView::Kernel, kWaitMs);
  }

  // The kernel view's legend for a loaded family is a built-in's: the kernel curve, "kernel K(d)",
  // and no basis function beside it (the module declares none). It showed a second entry "K",
  // a curve drawn exactly beneath the kernel, so the legend named a line no one could see.
  void loadedKernelIsNamedAsBuiltIns() {
    const FamilyDescription* shown = findFamily(w_->parameters()->familyId());
    QVERIFY(shown && shown->isLoaded());
    KernelView* view = w_->kernelView();
    QCustomPlot* plot = view->plot();
    QStringList names;
    for (int i = 0; i < plot->graphCount(); ++i) names << plot->graph(i)->name();
    QCOMPARE(names, QStringList{QStringLiteral("kernel K(d)")});
    QCOMPARE(plot->legend->itemCount(), 1);
    QCOMPARE(view->kernelGraph()->name(), QStringLiteral("kernel K(d)"));
    QVERIFY(!view->basisGraph("K"));
    QCOMPARE(plot->yAxis->label(), QStringLiteral("kernel K(d)"));  // no basis function beside it

    // A built-in's kernel curve, for the comparison: the same name.
    QVERIFY(w_->parameters()->setFamily("alibi"));
    test::settleExplorer(shell_->explorer(), ExplorerView::Kernel, kWaitMs);
    QVERIFY(view->kernelGraph());
    QCOMPARE(view->kernelGraph()->name(), QStringLiteral("kernel K(d)"));
  }
};

QTEST_MAIN(TestLoadEncodingDialog)
#include "test_load_encoding_dialog.moc"
