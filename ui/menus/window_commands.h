// What the Export and Help entries of the menus do (the entries themselves: menu_bar.h; wired in
// app_shell.cpp): exports of the current view (its plot as an image, its data as CSV) and of the
// run report, right-click export menus on every plot, the keyboard-shortcuts dialog (built from
// the menu bar as it is), and Space as play/pause that never steals a keystroke from a text field,
// spin box, list or check box that has focus.
#pragma once

#include <QObject>

#include "explorer/explorer_controller.h"  // ExplorerWidgets
#include "export/run_report.h"
#include "window_view.h"

class QCustomPlot;
class QDialog;
class QMainWindow;
class QTableWidget;

namespace poslab::ui {

class PlotContextMenus;
class TrainingPanel;

// The run report's content from the training tab as it stands, its plots replotted first (the
// coalescing timer may not have drawn the newest points yet).
RunReportContent runReportOf(TrainingPanel* training);

class WindowCommands : public QObject {
  Q_OBJECT
 public:
  WindowCommands(QMainWindow* window, ViewSelector* views, const ExplorerWidgets& explorer,
                 TrainingPanel* training);

  // The plot Ctrl+E exports: the current explorer view's plot; null on the training tab (there
  // Ctrl+E writes the run report, which holds every training plot).
  QCustomPlot* currentPlot() const;
  // Opens (or raises) Help > Keyboard shortcuts; non-modal.
  QDialog* showShortcutsDialog();

  void exportCurrentImage();
  void exportCurrentData();
  void exportRunReport();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QMainWindow* window_;
  ViewSelector* views_;
  ExplorerWidgets explorer_;
  TrainingPanel* training_;
  PlotContextMenus* plotMenus_ = nullptr;
  QDialog* shortcuts_ = nullptr;
  QTableWidget* shortcutsTable_ = nullptr;  // in shortcuts_
};

}  // namespace poslab::ui
