// The window's Edit, View, Training and Help menus and the File > Export submenu: undo/redo of
// parameter changes, tab switching, training transport, exports of the current view and the run
// report, right-click export menus on every plot, and the keyboard-shortcuts dialog.
//
// Shortcuts (all shown in the menus and in Help > Keyboard shortcuts):
//   Ctrl+Z / Ctrl+Shift+Z, Ctrl+Y  undo / redo a parameter change
//   Ctrl+1 .. Ctrl+6               kernel, attention, norms, probe, diagnostics, training tab
//   Ctrl+E / Ctrl+Shift+E          export the current view's plot as an image / its data as CSV
//   Ctrl+P, Space                  play or pause training (training tab only)
//   Ctrl+.                         one training step;  Ctrl+R  reset training
//   F1                             the shortcuts dialog
// Space never steals a keystroke from a text field, spin box, list or check box that has focus,
// and a spin box keeps its own Ctrl+Z (its text's undo) while it has focus.
#pragma once

#include <QObject>
#include <QString>

#include <vector>

class QAction;
class QCustomPlot;
class QDialog;
class QMenu;
class QTableWidget;

namespace poslab::ui {

class MainWindow;
class ParameterUndo;
class PlotContextMenus;

class EditViewMenus : public QObject {
  Q_OBJECT
 public:
  explicit EditViewMenus(MainWindow* window);

  ParameterUndo* undo() const { return undo_; }
  // The plot Ctrl+E exports: the current explorer view's plot; null on the training tab (there
  // Ctrl+E writes the run report, which holds every training plot).
  QCustomPlot* currentPlot() const;
  // Opens (or raises) Help > Keyboard shortcuts; non-modal.
  QDialog* showShortcutsDialog();

  // Named actions, for tests and other menus: "actionUndo", "actionRedo", "actionView1".."6",
  // "actionExportImage", "actionExportData", "actionExportReport", "actionPlayPause",
  // "actionStep", "actionReset", "actionShortcuts".
  QAction* action(const QString& objectName) const;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QMenu* fileMenu();
  void buildExportMenu(QMenu* file);
  void buildEditMenu();
  void buildViewMenu();
  void buildTrainingMenu();
  void buildHelpMenu();
  void onTabChanged();
  void exportCurrentImage();
  void exportCurrentData();
  void exportRunReport();
  QAction* makeAction(QMenu* menu, const char* name, const QString& text);

  MainWindow* window_;
  ParameterUndo* undo_ = nullptr;
  PlotContextMenus* plotMenus_ = nullptr;
  QDialog* shortcuts_ = nullptr;
  QTableWidget* shortcutsTable_ = nullptr;  // in shortcuts_
  QMenu* helpMenu_ = nullptr;               // kept last in the menu bar
  std::vector<QAction*> viewActions_;       // View > tab i, in tab order
  std::vector<QAction*> trainingActions_;   // Play / Pause, Step, Reset
  QAction* exportData_ = nullptr;
};

}  // namespace poslab::ui
