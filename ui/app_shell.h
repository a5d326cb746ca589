// The composition root of the desktop application: builds the window (widgets and layout,
// main_window.h), the controllers that drive it (the explorer's, sessions, lessons, presentation
// mode, the menus' commands), the menu bar (menu_bar.h, typed actions) and the undo stack of the
// explorer's parameters, and wires them. Each part gets the narrow view of the others it needs,
// never the window as a whole: sessions the explorer's widgets, the training tab, the tab switch
// and the undo stack; lessons the same plus the training tab's view and Play; presentation mode
// the setup areas it folds; the run report its plots and the running experiment.
//
// The application, `poslab --screenshot`, the GUI tests and the GUI benchmark build one AppShell
// each; nothing else constructs a MainWindow.
#pragma once

#include <QString>

#include <functional>
#include <memory>

#include "menus/menu_bar.h"
#include "session/session_state.h"

class QUndoStack;

namespace poslab::ui {

class MainWindow;
class ExplorerController;
class SessionController;
class LessonPlayer;
class LessonPanel;
class PresentationMode;
class ParameterUndo;
class TrainingPanel;
class WindowCommands;
class EncodingLoader;
class FamilyFileGate;
class HelpWindow;

class AppShell {
 public:
  AppShell();
  ~AppShell();
  AppShell(const AppShell&) = delete;
  AppShell& operator=(const AppShell&) = delete;

  MainWindow& window() const { return *window_; }
  ExplorerController* explorer() const { return explorer_; }
  SessionController* sessions() const { return sessions_; }
  LessonPlayer* lessons() const { return lessons_; }
  LessonPanel* lessonPanel() const { return lessonPanel_; }
  PresentationMode* presentation() const { return presentation_; }
  WindowCommands* commands() const { return commands_; }
  EncodingLoader* encodings() const { return encodings_; }
  // Every load of a TorchScript module the window's commands make goes through it.
  FamilyFileGate* familyGate() const { return familyGate_; }
  ParameterUndo* undo() const { return undo_; }
  // Help > What am I looking at? and the Lessons panel's "?" share its one window.
  HelpWindow& help() const { return *help_; }
  QUndoStack* undoStack() const;
  const MenuActions& actions() const { return actions_; }
  // What sessions (and lesson steps) capture and set.
  SessionParts sessionParts() const;

  // Loads a preset into the training tab and shows it (presets_menu.h); its TorchScript modules
  // load on the calling thread.
  bool loadPreset(const QString& nameOrPath, QString* error, QString* note);
  // The Presets menu's command: loadPreset once the preset's modules have loaded through the
  // gate, then Play; a problem in an error box (object name "presetError"), nothing changed.
  // `done` (optional) hears whether it loaded, else the problem's first line (empty: the user
  // declined the notice).
  void loadPresetInBackground(const QString& nameOrPath,
                              std::function<void(bool ok, const QString& error)> done = {});
  // Training > Train from Here: the training tab set to the explorer's family, its values as the
  // run's family parameters, and shown; the runs start at Play. False with *error (nothing
  // changed) when the training tab refuses the setup.
  bool trainFromHere(QString* error);
  // Training > Show in Explorer: the explorer set to run `run`'s family and learned values (the
  // mean over layers, then over every head for `head` -1, else head `head`'s own, over the values
  // the run started from) and the kernel tab shown; one undo step. False with *error when there
  // is no such run or it has not reported its parameters yet. The menu takes the run and head
  // the training tab's "learned:" row shows (training/explorer_link_row.h).
  bool showRunInExplorer(int run, int head, QString* error);

 private:
  void wireMenus();
  void onViewChanged();

  std::unique_ptr<MainWindow> window_;
  ExplorerController* explorer_ = nullptr;  // children of the window, as all the parts below
  ParameterUndo* undo_ = nullptr;
  SessionController* sessions_ = nullptr;
  LessonPlayer* lessons_ = nullptr;
  LessonPanel* lessonPanel_ = nullptr;
  PresentationMode* presentation_ = nullptr;
  WindowCommands* commands_ = nullptr;
  EncodingLoader* encodings_ = nullptr;  // File > Load Encoding...
  FamilyFileGate* familyGate_ = nullptr;
  std::unique_ptr<HelpWindow> help_;  // its dialog is the window's child
  MenuActions actions_;
};

}  // namespace poslab::ui
