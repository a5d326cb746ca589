// The PosLab window: the parameter and formula panels on the left; on the right the explorer's
// five views and the live-training tab, with a status label for computation errors; the Lessons
// panel in a dock on the right (hidden until asked for) and presentation mode.
#pragma once

#include <QMainWindow>
#include <QString>

#include <optional>
#include <vector>

#include "bridge/explorer_types.h"

class QDockWidget;
class QLabel;
class QSplitter;
class QTabWidget;

namespace poslab::ui {

class ParameterPanel;
class FormulaPanel;
class KernelView;
class AttentionView;
class NormsView;
class ProbeView;
class DiagnosticsView;
class ExplorerController;
class TrainingPanel;
class SessionController;
class EditViewMenus;
class LessonPlayer;
class LessonPanel;
class PresentationMode;

// The window's tabs, in order.
enum class WindowView { Kernel, Attention, Norms, Probe, Diagnostics, Training };
// "kernel", "attention", "norms", "probe", "diagnostics", "training"; nullopt otherwise.
std::optional<WindowView> parseWindowView(const QString& name);
QString windowViewNames();  // "kernel|attention|..." for --help

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  void showView(WindowView view);
  WindowView currentView() const;

  ParameterPanel* parameters() const { return parameters_; }
  KernelView* kernelView() const { return kernel_; }
  AttentionView* attentionView() const { return attention_; }
  NormsView* normsView() const { return norms_; }
  ProbeView* probeView() const { return probe_; }
  DiagnosticsView* diagnosticsView() const { return diagnostics_; }
  TrainingPanel* trainingPanel() const { return training_; }
  ExplorerController* controller() const { return controller_; }
  QLabel* errorLabel() const { return error_; }
  // File menu (sessions, recent files, copy/paste state) and the Presets menu.
  SessionController* sessionController() const { return sessions_; }
  // File > Export, Edit (undo), View (tabs), Training and Help menus; plot context menus.
  EditViewMenus* editViewMenus() const { return editViewMenus_; }
  QTabWidget* tabs() const { return tabs_; }
  // The explorer's setup column (parameters and formula), which presentation mode folds away.
  QWidget* leftColumn() const;
  // The lesson being followed, the Lessons panel (in a dock, object name "lessonDock", hidden
  // until Help > Lessons) and presentation mode (View > Presentation), with its caption under the
  // views (object name "presentationCaption", shown in presentation mode only).
  LessonPlayer* lessonPlayer() const { return lessonPlayer_; }
  LessonPanel* lessonPanel() const { return lessonPanel_; }
  QDockWidget* lessonDock() const { return lessonDock_; }
  PresentationMode* presentation() const { return presentation_; }
  QLabel* caption() const { return caption_; }
  // The splitters whose sizes are kept across runs (menus/file_menu.cpp), each with the name its
  // sizes are saved under.
  struct KeptSplitter {
    const char* name;
    QSplitter* splitter;
  };
  std::vector<KeptSplitter> keptSplitters() const {
    return {{"mainSplitter", mainSplitter_}, {"leftSplitter", leftSplitter_}};
  }

 private:
  ParameterPanel* parameters_ = nullptr;
  FormulaPanel* formula_ = nullptr;
  KernelView* kernel_ = nullptr;
  AttentionView* attention_ = nullptr;
  NormsView* norms_ = nullptr;
  ProbeView* probe_ = nullptr;
  DiagnosticsView* diagnostics_ = nullptr;
  TrainingPanel* training_ = nullptr;
  QLabel* error_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  QSplitter* mainSplitter_ = nullptr;
  QSplitter* leftSplitter_ = nullptr;
  ExplorerController* controller_ = nullptr;
  SessionController* sessions_ = nullptr;
  EditViewMenus* editViewMenus_ = nullptr;
  LessonPlayer* lessonPlayer_ = nullptr;
  LessonPanel* lessonPanel_ = nullptr;
  QDockWidget* lessonDock_ = nullptr;
  PresentationMode* presentation_ = nullptr;
  QLabel* caption_ = nullptr;
};

}  // namespace poslab::ui
