// The window's menu bar, built in one place, in its order: File, Presets, Edit, View, Training,
// Help; and the keys that act without a menu (lesson steps, leaving presentation mode). Every
// entry is a typed member of MenuActions: what an action does is wired by the composition root
// (app_shell.cpp), never found by object name. The object names set here are for saveState and
// for tests that drive the window as a user would.
//
// Shortcuts (all shown in the menus and in Help > Keyboard shortcuts):
//   Ctrl+O, Ctrl+S, Ctrl+Shift+S, Ctrl+Alt+S  open / save / save as / save with trained models
//   Ctrl+Shift+O                   open a lesson file;  Ctrl+Shift+C / V  copy / paste state
//   Ctrl+Z / Ctrl+Shift+Z, Ctrl+Y  undo / redo a parameter change
//   Ctrl+1 .. Ctrl+6               kernel, attention, norms, probe, diagnostics, training tab
//   Ctrl+E / Ctrl+Shift+E          export the current view's plot as an image / its data as CSV
//   Ctrl+P, Space                  play or pause training (training tab only)
//   Ctrl+.                         one training step;  Ctrl+R  reset training
//   F11 (Esc leaves)               presentation mode;  PageDown / PageUp  next / previous step
//   Ctrl+T / Ctrl+Shift+T          train from the explorer's values / show the learned ones there
//   Ctrl+L                         the Lessons panel;  F1  the shortcuts dialog;  Shift+F1  help
#pragma once

#include <QStringList>

#include <array>
#include <vector>

#include "window_view.h"

class QAction;
class QMainWindow;
class QMenu;
class QUndoStack;

namespace poslab::ui {

struct MenuActions {
  QMenu* file = nullptr;
  QAction* openSession = nullptr;
  QAction* openLesson = nullptr;
  QAction* loadEncoding = nullptr;  // a TorchScript family (menus/load_encoding.h)
  QMenu* recent = nullptr;          // filled by the session controller
  QAction* saveSession = nullptr;
  QAction* saveSessionAs = nullptr;
  QAction* saveSessionWithModels = nullptr;
  QAction* copyState = nullptr;
  QAction* pasteState = nullptr;
  QMenu* exportMenu = nullptr;
  QAction* exportImage = nullptr;
  QAction* exportData = nullptr;
  QAction* exportReport = nullptr;
  QAction* quit = nullptr;

  QMenu* presets = nullptr;  // one entry per preset, filled by fillPresetsMenu

  QMenu* edit = nullptr;
  QAction* undo = nullptr;  // the undo stack's own actions: enabled and named by the stack
  QAction* redo = nullptr;

  QMenu* view = nullptr;
  std::array<QAction*, kWindowViewCount> views{};  // checkable, in WindowView's order
  QAction* presentation = nullptr;                 // checkable

  QMenu* training = nullptr;
  QAction* playPause = nullptr;
  QAction* step = nullptr;
  QAction* reset = nullptr;
  QAction* trainFromHere = nullptr;   // explorer tabs: train the explorer's family and values
  QAction* showInExplorer = nullptr;  // training tab: the first run's learned values, explored

  QMenu* help = nullptr;
  QAction* lessons = nullptr;  // the Lessons dock's toggle action
  QAction* shortcuts = nullptr;
  QAction* whatAmILookingAt = nullptr;

  // Window actions, in no menu: they work while the menu bar is hidden (presentation mode).
  QAction* lessonNext = nullptr;
  QAction* lessonBack = nullptr;
  QAction* leavePresentation = nullptr;

  // Every action above (menus' own actions excluded), for checks that none is missing.
  std::vector<QAction*> all() const;
  std::vector<QMenu*> menus() const;
};

// Builds the menu bar of `window` and its window actions. `undo` gives Edit's Undo and Redo,
// `lessonsToggle` (the Lessons dock's toggleViewAction) becomes Help > Lessons, `viewTitles` are
// the tabs' titles in WindowView's order.
MenuActions buildMenuBar(QMainWindow* window, QUndoStack* undo, QAction* lessonsToggle,
                         const QStringList& viewTitles);

}  // namespace poslab::ui
