// The PosLab window, widgets and layout only: the parameter and formula panels on the left; on
// the right the explorer's five views and the live-training tab, with a status label for
// computation errors and a caption under the views (presentation mode's); a dock on the right for
// the Lessons panel (hidden until asked for). What drives these widgets (the explorer's
// computations, sessions, lessons, presentation mode, the menus) is built and wired by the
// composition root, app_shell.h; nothing else holds the window.
#pragma once

#include <QMainWindow>
#include <QString>

#include <utility>
#include <vector>

#include "explorer/explorer_controller.h"  // ExplorerWidgets
#include "window_view.h"

class QDockWidget;
class QLabel;
class QSplitter;
class QTabWidget;
class QToolButton;

namespace poslab::ui {

class ParameterPanel;
class FormulaPanel;
class KernelView;
class AttentionView;
class NormsView;
class ProbeView;
class DiagnosticsView;
class TrainingPanel;

class MainWindow : public QMainWindow, public ViewSelector {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  void showView(WindowView view) override;
  WindowView currentView() const override;

  ParameterPanel* parameters() const { return explorer_.parameters; }
  KernelView* kernelView() const { return explorer_.kernel; }
  AttentionView* attentionView() const { return explorer_.attention; }
  NormsView* normsView() const { return explorer_.norms; }
  ProbeView* probeView() const { return explorer_.probe; }
  DiagnosticsView* diagnosticsView() const { return explorer_.diagnostics; }
  // The explorer's widgets together (its controller and sessions take them so).
  const ExplorerWidgets& explorerWidgets() const { return explorer_; }
  TrainingPanel* trainingPanel() const { return training_; }
  QLabel* errorLabel() const { return explorer_.error; }
  QTabWidget* tabs() const { return tabs_; }
  // The explorer's setup column (parameters and formula), which presentation mode folds away.
  QWidget* leftColumn() const;
  // The dock the Lessons panel lives in (object name "lessonDock", hidden until Help > Lessons).
  QDockWidget* lessonDock() const { return lessonDock_; }
  // The caption under the views (object name "presentationCaption", presentation mode only).
  QLabel* caption() const { return caption_; }
  // Under the parameters: the Training menu's Train from Here (the shell sets its action).
  QToolButton* trainFromHereButton() const { return trainFromHere_; }
  // The splitter between the setup column and the views (a lesson screenshot sets its sizes).
  QSplitter* mainSplitter() const { return mainSplitter_; }
  // The splitters whose sizes are kept across runs (menus/file_menu.cpp), each with the name its
  // sizes are saved under.
  std::vector<std::pair<QString, QSplitter*>> keptSplitters() const {
    return {{"mainSplitter", mainSplitter_}, {"leftSplitter", leftSplitter_}};
  }

 private:
  ExplorerWidgets explorer_;
  TrainingPanel* training_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  QToolButton* trainFromHere_ = nullptr;
  QSplitter* mainSplitter_ = nullptr;
  QSplitter* leftSplitter_ = nullptr;
  QDockWidget* lessonDock_ = nullptr;
  QLabel* caption_ = nullptr;
};

}  // namespace poslab::ui
