#include "menus/window_commands.h"

#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QRadioButton>
#include <QStatusBar>
#include <QTableWidget>
#include <QTextEdit>
#include <QVBoxLayout>

#include "error_report.h"
#include "explorer/attention_view.h"
#include "explorer/diagnostics_view.h"
#include "explorer/kernel_view.h"
#include "explorer/norms_view.h"
#include "explorer/probe_view.h"
#include "export/plot_export.h"
#include "export/run_report.h"
#include "training/training_panel.h"

namespace poslab::ui {

namespace {

// A menu text without its mnemonic marks ("&Edit" -> "Edit", "Kernel && basis" -> "Kernel &
// basis").
QString plainText(QString text) {
  text.replace("&&", QChar(0x1)).remove('&').replace(QChar(0x1), '&');
  return text;
}
QString plainTitle(const QMenu* menu) {
  return plainText(menu->title());
}

// Widgets that use a plain Space themselves (typing, toggling a check box or list item, opening a
// combo box): while one has focus, Space is theirs, not play/pause.
bool usesSpace(const QWidget* w) {
  for (; w; w = w->parentWidget()) {
    if (qobject_cast<const QLineEdit*>(w) || qobject_cast<const QAbstractSpinBox*>(w) ||
        qobject_cast<const QTextEdit*>(w) || qobject_cast<const QPlainTextEdit*>(w) ||
        qobject_cast<const QComboBox*>(w) || qobject_cast<const QAbstractItemView*>(w) ||
        qobject_cast<const QCheckBox*>(w) || qobject_cast<const QRadioButton*>(w))
      return true;
  }
  return false;
}

void collectShortcuts(const QMenu* menu, const QString& path, QTableWidget* table) {
  for (QAction* a : menu->actions()) {
    if (a->menu()) {
      collectShortcuts(a->menu(), path + " › " + plainTitle(a->menu()), table);
      continue;
    }
    if (a->isSeparator() || a->shortcuts().isEmpty()) continue;
    QStringList keys;
    for (const QKeySequence& k : a->shortcuts()) keys << k.toString(QKeySequence::NativeText);
    const int row = table->rowCount();
    table->insertRow(row);
    table->setItem(row, 0, new QTableWidgetItem(keys.join(QObject::tr("  or  "))));
    table->setItem(row, 1, new QTableWidgetItem(path + " › " + plainText(a->text())));
  }
}
}  // namespace

RunReportContent runReportOf(TrainingPanel* training) {
  RunReportContent report;
  training->replot();
  report.plots = training->plots();
  report.experiment = training->runningExperiment();  // what ran, not the controls
  report.step = training->stepCount();
  report.status = training->statusText();
  for (int i = 0; i < training->runCount(); ++i)
    report.runs.push_back({training->runFamily(i), training->runStep(i), training->latestEval(i)});
  return report;
}

WindowCommands::WindowCommands(QMainWindow* window, ViewSelector* views,
                               const ExplorerWidgets& explorer, TrainingPanel* training)
    : QObject(window), window_(window), views_(views), explorer_(explorer), training_(training) {
  setObjectName("windowCommands");
  plotMenus_ = new PlotContextMenus(window);
  qApp->installEventFilter(this);  // Space: see eventFilter
}

QCustomPlot* WindowCommands::currentPlot() const {
  switch (views_->currentView()) {
    case WindowView::Kernel:
      return explorer_.kernel->plot();
    case WindowView::Attention:
      return explorer_.attention->plot();
    case WindowView::Norms:
      return explorer_.norms->plot();
    case WindowView::Probe:
      return explorer_.probe->plot();
    case WindowView::Diagnostics:
      return explorer_.diagnostics->plot();
    case WindowView::Training:
      return nullptr;
  }
  return nullptr;
}

void WindowCommands::exportCurrentImage() {
  QCustomPlot* plot = currentPlot();
  if (!plot) return exportRunReport();
  const QString path = exportPlotImageInteractive(window_, plot, plotBaseName(plot));
  if (!path.isEmpty()) showStatus(window_, tr("wrote %1").arg(path));
}

void WindowCommands::exportCurrentData() {
  QCustomPlot* plot = currentPlot();
  if (!plot) return;
  const QString path = exportPlotCsvInteractive(window_, plot, plotBaseName(plot));
  if (!path.isEmpty()) showStatus(window_, tr("wrote %1").arg(path));
}

void WindowCommands::exportRunReport() {
  QString path = QFileDialog::getSaveFileName(window_, tr("Export run report"), "poslab-report.md",
                                              tr("Markdown (*.md)"));
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) path += ".md";
  QStringList written;
  const QString problem = writeRunReport(runReportOf(training_), path, &written);
  if (!problem.isEmpty()) {
    showError(window_, {tr("Export run report"), problem}, QStringLiteral("exportError"));
    return;
  }
  showStatus(window_, tr("wrote %1 and %2 files in %3")
                          .arg(path)
                          .arg(written.size() - 1)
                          .arg(runReportFolder(path)));
}

QDialog* WindowCommands::showShortcutsDialog() {
  if (!shortcuts_) {
    shortcuts_ = new QDialog(window_);
    shortcuts_->setObjectName("shortcutsDialog");
    shortcuts_->setWindowTitle(tr("Keyboard shortcuts"));
    auto* layout = new QVBoxLayout(shortcuts_);
    auto* table = new QTableWidget(0, 2, shortcuts_);
    table->setObjectName("shortcutsTable");
    shortcutsTable_ = table;
    table->setHorizontalHeaderLabels({tr("Keys"), tr("Action")});
    table->verticalHeader()->setVisible(false);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(table);
    auto* notes = new QLabel(
        tr("Space plays or pauses only on the training tab, and not while a text field, spin box, "
           "list or check box has focus (they keep their Space). In a spin box, Ctrl+Z undoes its "
           "text; press Enter first, then Ctrl+Z undoes the parameter change.\n"
           "On a plot: right-click to export its image or data; drag to pan, wheel to zoom."),
        shortcuts_);
    notes->setWordWrap(true);
    layout->addWidget(notes);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, shortcuts_);
    connect(buttons, &QDialogButtonBox::rejected, shortcuts_, &QDialog::close);
    layout->addWidget(buttons);
    shortcuts_->resize(620, 640);
  }
  // Rebuilt each time, from the menus as they are: other menus' shortcuts are listed too.
  QTableWidget* table = shortcutsTable_;
  table->setRowCount(0);
  for (QAction* a : window_->menuBar()->actions())
    if (a->menu()) collectShortcuts(a->menu(), plainTitle(a->menu()), table);
  table->resizeColumnToContents(0);
  shortcuts_->show();
  shortcuts_->raise();
  return shortcuts_;
}

bool WindowCommands::eventFilter(QObject* watched, QEvent* event) {
  // Accepting the override hands Space to the focused widget instead of the Play/Pause shortcut.
  if (event->type() != QEvent::ShortcutOverride) return false;
  auto* key = static_cast<QKeyEvent*>(event);
  if (key->key() != Qt::Key_Space || key->modifiers() != Qt::NoModifier) return false;
  auto* w = qobject_cast<QWidget*>(watched);
  if (w && w->window() == window_ && usesSpace(w)) event->accept();
  return false;
}

}  // namespace poslab::ui
