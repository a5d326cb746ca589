#include "main_window.h"

#include <QDockWidget>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include "explorer/attention_view.h"
#include "explorer/diagnostics_view.h"
#include "explorer/formula_panel.h"
#include "explorer/kernel_view.h"
#include "explorer/norms_view.h"
#include "explorer/parameter_panel.h"
#include "explorer/probe_view.h"
#include "training/training_panel.h"

namespace poslab::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("PosLab — relative positional encodings"));
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->setObjectName("mainSplitter");  // sizes kept across runs (menus/file_menu.cpp)
  mainSplitter_ = split;

  auto* left = new QSplitter(Qt::Vertical, split);
  left->setObjectName("leftSplitter");
  leftSplitter_ = left;
  auto* top = new QWidget(left);
  auto* topLayout = new QVBoxLayout(top);
  topLayout->setContentsMargins(0, 0, 0, 0);
  auto* scroll = new QScrollArea(top);
  scroll->setWidgetResizable(true);
  explorer_.parameters = new ParameterPanel(scroll);
  scroll->setWidget(explorer_.parameters);
  trainFromHere_ = new QToolButton(top);
  trainFromHere_->setObjectName("trainFromHereButton");
  topLayout->addWidget(scroll, 1);
  topLayout->addWidget(trainFromHere_, 0, Qt::AlignRight);
  explorer_.formula = new FormulaPanel(left);
  left->addWidget(top);
  left->addWidget(explorer_.formula);
  left->setStretchFactor(0, 3);
  left->setStretchFactor(1, 2);

  auto* right = new QWidget(split);
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  QLabel* error = new QLabel(right);
  explorer_.error = error;
  error->setObjectName("errorLabel");
  error->setWordWrap(true);
  error->setStyleSheet("QLabel { color: #b00000; font-weight: bold; }");
  error->setVisible(false);
  tabs_ = new QTabWidget(right);
  explorer_.kernel = new KernelView(tabs_);
  explorer_.attention = new AttentionView(tabs_);
  explorer_.norms = new NormsView(tabs_);
  explorer_.probe = new ProbeView(tabs_);
  explorer_.diagnostics = new DiagnosticsView(tabs_);
  training_ = new TrainingPanel(tabs_);
  // In WindowView's order.
  tabs_->addTab(explorer_.kernel, tr("Kernel && basis"));
  tabs_->addTab(explorer_.attention, tr("Attention map"));
  tabs_->addTab(explorer_.norms, tr("Feature norms"));
  tabs_->addTab(explorer_.probe, tr("Kernel probe"));
  tabs_->addTab(explorer_.diagnostics, tr("PJ diagnostics"));
  tabs_->addTab(training_, tr("Live training"));
  caption_ = new QLabel(right);
  caption_->setObjectName("presentationCaption");
  caption_->setWordWrap(true);
  caption_->setTextFormat(Qt::RichText);
  caption_->setVisible(false);
  rightLayout->addWidget(error);
  rightLayout->addWidget(tabs_, 1);
  rightLayout->addWidget(caption_);
  split->addWidget(left);
  split->addWidget(right);
  split->setStretchFactor(0, 0);
  split->setStretchFactor(1, 1);
  split->setSizes({380, 1000});
  setCentralWidget(split);

  lessonDock_ = new QDockWidget(tr("Lessons"), this);
  lessonDock_->setObjectName("lessonDock");  // QMainWindow::saveState names docks by object name
  addDockWidget(Qt::RightDockWidgetArea, lessonDock_);
  lessonDock_->hide();
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
