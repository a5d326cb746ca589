#include "menus/edit_view_menus.h"

#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QAction>
#include <QActionGroup>
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
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QRadioButton>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextEdit>
#include <QTimer>
#include <QUndoStack>
#include <QVBoxLayout>

#include "error_report.h"
#include "explorer/attention_view.h"
#include "explorer/diagnostics_view.h"
#include "explorer/kernel_view.h"
#include "explorer/norms_view.h"
#include "explorer/probe_view.h"
#include "export/plot_export.h"
#include "export/run_report.h"
#include "help/view_help.h"
#include "main_window.h"
#include "training/training_panel.h"
#include "undo/parameter_undo.h"

namespace poslab::ui {

namespace {
constexpr int kTabCount = 6;

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

EditViewMenus::EditViewMenus(MainWindow* window) : QObject(window), window_(window) {
  setObjectName("editViewMenus");
  undo_ = new ParameterUndo(window->parameters(), this);
  plotMenus_ = new PlotContextMenus(window);
  buildExportMenu(fileMenu());
  buildEditMenu();
  buildViewMenu();
  buildTrainingMenu();
  buildHelpMenu();
  connect(window->tabs(), &QTabWidget::currentChanged, this, &EditViewMenus::onTabChanged);
  onTabChanged();
  qApp->installEventFilter(this);  // Space: see eventFilter
  // Menus added after this one (File, Presets, ...) go before Help, which stays last.
  QTimer::singleShot(0, this, [this] {
    QMenuBar* bar = window_->menuBar();
    bar->removeAction(helpMenu_->menuAction());
    bar->addAction(helpMenu_->menuAction());
  });
}

QAction* EditViewMenus::action(const QString& objectName) const {
  return window_->findChild<QAction*>(objectName);
}

QAction* EditViewMenus::makeAction(QMenu* menu, const char* name, const QString& text) {
  auto* a = new QAction(text, window_);
  a->setObjectName(name);
  menu->addAction(a);
  return a;
}

QMenu* EditViewMenus::fileMenu() {
  // The File menu may already exist (sessions, presets); share it rather than add a second one.
  QMenuBar* bar = window_->menuBar();
  for (QAction* a : bar->actions())
    if (a->menu() && (a->menu()->objectName() == "fileMenu" || plainTitle(a->menu()) == tr("File")))
      return a->menu();
  auto* file = new QMenu(tr("&File"), bar);
  file->setObjectName("fileMenu");
  const QList<QAction*> existing = bar->actions();
  if (existing.isEmpty())
    bar->addMenu(file);
  else
    bar->insertMenu(existing.front(), file);
  return file;
}

void EditViewMenus::buildExportMenu(QMenu* file) {
  auto* menu = new QMenu(tr("&Export"), file);
  menu->setObjectName("menuExport");
  // Above Quit (the File menu's last entry) when there is one.
  QAction* quit = nullptr;
  for (QAction* a : file->actions())
    if (a->shortcut() == QKeySequence(QKeySequence::Quit) || a->menuRole() == QAction::QuitRole)
      quit = a;
  if (quit) {
    file->insertMenu(quit, menu);
    file->insertSeparator(quit);
  } else {
    file->addMenu(menu);
  }
  QAction* image =
      makeAction(menu, "actionExportImage", tr("Current view as &image (PNG, SVG, PDF)…"));
  image->setShortcut(QKeySequence(tr("Ctrl+E")));
  image->setStatusTip(
      tr("The shown plot as PNG, SVG or PDF (by the file's extension); on the "
         "training tab, the run report"));
  connect(image, &QAction::triggered, this, &EditViewMenus::exportCurrentImage);
  QAction* data = makeAction(menu, "actionExportData", tr("Current view's &data (CSV)…"));
  exportData_ = data;
  data->setShortcut(QKeySequence(tr("Ctrl+Shift+E")));
  data->setStatusTip(tr("The shown plot's data, one column per x and per curve"));
  connect(data, &QAction::triggered, this, &EditViewMenus::exportCurrentData);
  menu->addSeparator();
  QAction* report = makeAction(menu, "actionExportReport", tr("&Run report (Markdown + figures)…"));
  report->setStatusTip(tr("The training tab: setup, latest evaluation and every plot"));
  connect(report, &QAction::triggered, this, &EditViewMenus::exportRunReport);
}

void EditViewMenus::buildEditMenu() {
  QMenu* edit = window_->menuBar()->addMenu(tr("&Edit"));
  edit->setObjectName("menuEdit");
  QUndoStack* stack = undo_->stack();
  QAction* undo = stack->createUndoAction(window_, tr("&Undo"));
  undo->setObjectName("actionUndo");
  undo->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Z)});
  QAction* redo = stack->createRedoAction(window_, tr("&Redo"));
  redo->setObjectName("actionRedo");
  redo->setShortcuts(
      {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});
  edit->addAction(undo);
  edit->addAction(redo);
}

void EditViewMenus::buildViewMenu() {
  QMenu* view = window_->menuBar()->addMenu(tr("&View"));
  view->setObjectName("menuView");
  auto* group = new QActionGroup(this);
  group->setExclusive(true);
  QTabWidget* tabs = window_->tabs();
  for (int i = 0; i < kTabCount && i < tabs->count(); ++i) {
    const QByteArray name = "actionView" + QByteArray::number(i + 1);
    QAction* a = makeAction(view, name.constData(), tabs->tabText(i));
    a->setCheckable(true);
    a->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i)));
    group->addAction(a);
    viewActions_.push_back(a);
    connect(a, &QAction::triggered, this,
            [this, i] { window_->showView(static_cast<WindowView>(i)); });
  }
}

void EditViewMenus::buildTrainingMenu() {
  QMenu* menu = window_->menuBar()->addMenu(tr("&Training"));
  menu->setObjectName("menuTraining");
  TrainingPanel* panel = window_->trainingPanel();
  QAction* play = makeAction(menu, "actionPlayPause", tr("&Play / Pause"));
  play->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_P), QKeySequence(Qt::Key_Space)});
  connect(play, &QAction::triggered, panel, [panel] {
    if (panel->isPlaying())
      panel->pause();
    else
      panel->play();
  });
  QAction* step = makeAction(menu, "actionStep", tr("&Step"));
  step->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
  connect(step, &QAction::triggered, panel, &TrainingPanel::stepOnce);
  QAction* reset = makeAction(menu, "actionReset", tr("&Reset"));
  reset->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  connect(reset, &QAction::triggered, panel, &TrainingPanel::reset);
  for (QAction* a : {play, step, reset}) a->setStatusTip(tr("Live training tab only"));
  trainingActions_ = {play, step, reset};
}

void EditViewMenus::buildHelpMenu() {
  QMenu* help = window_->menuBar()->addMenu(tr("&Help"));
  help->setObjectName("menuHelp");
  helpMenu_ = help;
  QAction* keys = makeAction(help, "actionShortcuts", tr("&Keyboard shortcuts"));
  keys->setShortcut(QKeySequence(Qt::Key_F1));
  connect(keys, &QAction::triggered, this, [this] { showShortcutsDialog(); });
  QAction* what = makeAction(help, "actionWhatAmILookingAt", tr("&What am I looking at?"));
  what->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F1));
  what->setStatusTip(tr("A short note on the current tab"));
  connect(what, &QAction::triggered, this,
          [this] { showViewHelp(window_, window_->currentView()); });
}

void EditViewMenus::onTabChanged() {
  const WindowView v = window_->currentView();
  const int index = static_cast<int>(v);
  if (index >= 0 && index < static_cast<int>(viewActions_.size()))
    viewActions_[static_cast<size_t>(index)]->setChecked(true);
  const bool training = v == WindowView::Training;
  for (QAction* a : trainingActions_) a->setEnabled(training);
  if (exportData_) exportData_->setEnabled(!training);
}

QCustomPlot* EditViewMenus::currentPlot() const {
  switch (window_->currentView()) {
    case WindowView::Kernel:
      return window_->kernelView()->plot();
    case WindowView::Attention:
      return window_->attentionView()->plot();
    case WindowView::Norms:
      return window_->normsView()->plot();
    case WindowView::Probe:
      return window_->probeView()->plot();
    case WindowView::Diagnostics:
      return window_->diagnosticsView()->plot();
    case WindowView::Training:
      return nullptr;
  }
  return nullptr;
}

void EditViewMenus::exportCurrentImage() {
  QCustomPlot* plot = currentPlot();
  if (!plot) return exportRunReport();
  const QString path = exportPlotImageInteractive(window_, plot, plotBaseName(plot));
  if (!path.isEmpty()) showStatus(window_, tr("wrote %1").arg(path));
}

void EditViewMenus::exportCurrentData() {
  QCustomPlot* plot = currentPlot();
  if (!plot) return;
  const QString path = exportPlotCsvInteractive(window_, plot, plotBaseName(plot));
  if (!path.isEmpty()) showStatus(window_, tr("wrote %1").arg(path));
}

void EditViewMenus::exportRunReport() {
  QString path = QFileDialog::getSaveFileName(window_, tr("Export run report"), "poslab-report.md",
                                              tr("Markdown (*.md)"));
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) path += ".md";
  QStringList written;
  const QString problem = writeRunReport(window_->trainingPanel(), path, &written);
  if (!problem.isEmpty()) {
    showError(window_, {tr("Export run report"), problem}, QStringLiteral("exportError"));
    return;
  }
  showStatus(window_, tr("wrote %1 and %2 files in %3")
                          .arg(path)
                          .arg(written.size() - 1)
                          .arg(runReportFolder(path)));
}

QDialog* EditViewMenus::showShortcutsDialog() {
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

bool EditViewMenus::eventFilter(QObject* watched, QEvent* event) {
  // Accepting the override hands Space to the focused widget instead of the Play/Pause shortcut.
  if (event->type() != QEvent::ShortcutOverride) return false;
  auto* key = static_cast<QKeyEvent*>(event);
  if (key->key() != Qt::Key_Space || key->modifiers() != Qt::NoModifier) return false;
  auto* w = qobject_cast<QWidget*>(watched);
  if (w && w->window() == window_ && usesSpace(w)) event->accept();
  return false;
}

}  // namespace poslab::ui
