#include "main_window.h"

#include <QDockWidget>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>

#include "error_report.h"
#include "explorer/attention_view.h"
#include "explorer/diagnostics_view.h"
#include "explorer/explorer_controller.h"
#include "explorer/formula_panel.h"
#include "explorer/kernel_view.h"
#include "explorer/norms_view.h"
#include "explorer/parameter_panel.h"
#include "explorer/probe_view.h"
#include "lessons/lesson_panel.h"
#include "lessons/lesson_player.h"
#include "menus/edit_view_menus.h"
#include "menus/file_menu.h"
#include "menus/lesson_menus.h"
#include "presentation/presentation_mode.h"
#include "training/training_panel.h"

namespace poslab::ui {

namespace {
const char* const kViewNames[] = {"kernel", "attention",   "norms",
                                  "probe",  "diagnostics", "training"};
}  // namespace

std::optional<WindowView> parseWindowView(const QString& name) {
  for (int i = 0; i < 6; ++i)
    if (name == kViewNames[i]) return static_cast<WindowView>(i);
  return std::nullopt;
}

QString windowViewNames() {
  QStringList names;
  for (const char* n : kViewNames) names << n;
  return names.join('|');
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("PosLab — relative positional encodings"));
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->setObjectName("mainSplitter");  // sizes kept across runs (menus/file_menu.cpp)
  mainSplitter_ = split;

  auto* left = new QSplitter(Qt::Vertical, split);
  left->setObjectName("leftSplitter");
  leftSplitter_ = left;
  auto* scroll = new QScrollArea(left);
  scroll->setWidgetResizable(true);
  parameters_ = new ParameterPanel(scroll);
  scroll->setWidget(parameters_);
  formula_ = new FormulaPanel(left);
  left->addWidget(scroll);
  left->addWidget(formula_);
  left->setStretchFactor(0, 3);
  left->setStretchFactor(1, 2);

  auto* right = new QWidget(split);
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  error_ = new QLabel(right);
  error_->setObjectName("errorLabel");
  error_->setWordWrap(true);
  error_->setStyleSheet("QLabel { color: #b00000; font-weight: bold; }");
  error_->setVisible(false);
  tabs_ = new QTabWidget(right);
  kernel_ = new KernelView(tabs_);
  attention_ = new AttentionView(tabs_);
  norms_ = new NormsView(tabs_);
  probe_ = new ProbeView(tabs_);
  diagnostics_ = new DiagnosticsView(tabs_);
  training_ = new TrainingPanel(tabs_);
  tabs_->addTab(kernel_, tr("Kernel && basis"));
  tabs_->addTab(attention_, tr("Attention map"));
  tabs_->addTab(norms_, tr("Feature norms"));
  tabs_->addTab(probe_, tr("Kernel probe"));
  tabs_->addTab(diagnostics_, tr("PJ diagnostics"));
  tabs_->addTab(training_, tr("Live training"));
  caption_ = new QLabel(right);
  caption_->setObjectName("presentationCaption");
  caption_->setWordWrap(true);
  caption_->setTextFormat(Qt::RichText);
  caption_->setVisible(false);
  rightLayout->addWidget(error_);
  rightLayout->addWidget(tabs_, 1);
  rightLayout->addWidget(caption_);
  split->addWidget(left);
  split->addWidget(right);
  split->setStretchFactor(0, 0);
  split->setStretchFactor(1, 1);
  split->setSizes({380, 1000});
  setCentralWidget(split);

  controller_ = new ExplorerController(
      {parameters_, formula_, kernel_, attention_, norms_, probe_, diagnostics_, error_}, this);
  connect(tabs_, &QTabWidget::currentChanged, this, [this] {
    const WindowView v = currentView();
    controller_->setCurrentView(v == WindowView::Training
                                    ? std::nullopt
                                    : std::optional<ExplorerView>(static_cast<ExplorerView>(v)));
  });
  connect(training_, &TrainingPanel::statusMessage, this,
          [this](const QString& m) { showStatus(this, m); });
  controller_->setCurrentView(ExplorerView::Kernel);
  sessions_ = installSessionMenus(this);     // File (first) and Presets menus
  editViewMenus_ = new EditViewMenus(this);  // after File: adds File > Export to it

  lessonPlayer_ = new LessonPlayer(this);
  lessonDock_ = new QDockWidget(tr("Lessons"), this);
  lessonDock_->setObjectName("lessonDock");  // QMainWindow::saveState names docks by object name
  lessonPanel_ = new LessonPanel(lessonPlayer_, lessonDock_);
  lessonDock_->setWidget(lessonPanel_);
  addDockWidget(Qt::RightDockWidgetArea, lessonDock_);
  lessonDock_->hide();
  presentation_ = new PresentationMode(this, lessonPlayer_, caption_);
  installLessonMenus(this);  // after the File, View and Help menus it adds to
  resize(1400, 860);
}

MainWindow::~MainWindow() = default;

void MainWindow::showView(WindowView view) {
  tabs_->setCurrentIndex(static_cast<int>(view));
}

QWidget* MainWindow::leftColumn() const {
  return leftSplitter_;
}

WindowView MainWindow::currentView() const {
  return static_cast<WindowView>(tabs_->currentIndex());
}

}  // namespace poslab::ui
