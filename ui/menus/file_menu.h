// What the File menu drives (its entries: menu_bar.h): open/save .poslab sessions,
// Save Session with Trained Models (Ctrl+Alt+S: the setup plus each training run's checkpoint),
// a recent-files list kept in QSettings (at most 8; files that vanished are pruned with a
// message), Copy State / Paste State as one compact string on the clipboard, and the window
// layout (geometry, dock/toolbar state, splitter sizes) kept across runs. Errors never change
// the window: they show in a (non-blocking) message box and the status bar.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <utility>
#include <vector>

#include "session/session_state.h"

class QMainWindow;
class QMenu;
class QSplitter;

namespace poslab::ui {

class FamilyFileGate;

class SessionController : public QObject {
  Q_OBJECT
 public:
  static constexpr int kMaxRecent = 8;
  using KeptSplitters = std::vector<std::pair<QString, QSplitter*>>;  // saved under each name

  // `window`: the file dialogs' parent, its title names the current file, its layout is kept;
  // `parts`: what a session captures and sets; `recentMenu`: File > Open Recent, kept filled.
  SessionController(QMainWindow* window, const SessionParts& parts, QMenu* recentMenu,
                    KeptSplitters keptSplitters);

  QMenu* recentMenu() const { return recentMenu_; }
  // The session file last opened or saved (empty: none yet).
  QString currentFile() const { return currentFile_; }
  // The last error shown (empty after a success).
  QString lastError() const { return lastError_; }

  // The gate through which the commands load a session's TorchScript modules (the notice that
  // loading runs code, once; the modules checked off the UI thread). Without one they load on
  // the calling thread.
  void setFamilyGate(FamilyFileGate* gate) { gate_ = gate; }

  // Loads FILE and applies it as a whole; on any problem shows it and changes nothing. Its
  // TorchScript modules and trained models load on the calling thread (a caller without a user:
  // tests, or a session that names neither); the menu's commands and the command line
  // (command_line_start.h) use openInBackground.
  bool openFile(const QString& path);
  // What a command that goes on in the background says when it has ended: whether it was
  // applied, else its problem's first line (empty: the user declined the notice).
  using Outcome = std::function<void(bool ok, const QString& error)>;
  // openFile once the modules FILE names have loaded through the gate and its trained models'
  // checkpoints have been read, both off the UI thread; the window stays as it is (and responsive)
  // until then. A module or checkpoint that fails is shown as openFile shows its problems.
  void openInBackground(const QString& path, Outcome done = {});
  // True from openInBackground until the session is applied or refused.
  bool isOpening() const { return opening_; }
  // As openFile, but the problem goes to *error only (the command line prints it).
  bool loadFile(const QString& path, QString* error);
  // Saves the whole state to FILE atomically and makes it the current file.
  bool saveFile(const QString& path);
  // The whole state plus each training run's trained model. The runs' workers write the
  // checkpoints (between steps; the UI does not wait, playing runs keep playing) to
  // FILE.d/run<i>-<family>.pt, each atomically; then FILE is written listing them (relative
  // paths) and becomes the current file. The outcome comes later as sessionSaved (and in the
  // status bar, or an error box naming the file; on an error FILE is not written). False, with
  // the reason shown, when nothing was started: no run has taken a step yet, an earlier save is
  // still in flight, the folder cannot be made.
  bool saveFileWithModels(const QString& path);
  // The state string of the current state (also put on the clipboard by copyState()).
  QString stateString() const;
  // Applies a state string as a whole; on a bad string shows why and changes nothing. Its file
  // families are loaded first as saved (path and content hash, as a session's): a changed file
  // is refused. On the calling thread, as openFile.
  bool applyStateString(const QString& text);
  // applyStateString once its modules have loaded through the gate, as openInBackground.
  void applyStateStringInBackground(const QString& text);

  // Whether opening or saving a session adds it to Open Recent (QSettings); a screenshot's
  // session does not (screenshot.h).
  void setKeepsRecentFiles(bool keep) { keepsRecent_ = keep; }
  // Recent files, newest first, as stored (prune: drop the missing ones, say so, return them).
  QStringList recentFiles() const;
  QStringList pruneRecentFiles();

  // Window geometry, state and splitter sizes: restored from QSettings now and saved when the
  // window closes. Only the application calls this, so tests and screenshots get a fixed layout.
  void persistLayout();
  void saveLayout() const;

 public Q_SLOTS:
  void open();              // file dialog
  bool save();              // to the current file, else Save As
  bool saveAs();            // file dialog
  bool saveWithModelsAs();  // file dialog, then saveFileWithModels
  void copyState();         // clipboard
  void pasteState();        // clipboard

 Q_SIGNALS:
  // saveFileWithModels finished: error empty (FILE and its checkpoints are written) or why not.
  void sessionSaved(const QString& path, const QString& error);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void showError(const QString& title, const QString& text);
  void showMessage(const QString& text);
  void setCurrentFile(const QString& path);
  // openInBackground after the gate: reads the session's checkpoints off the UI thread, then
  // openFile.
  void openWithTrainedModels(const QString& path, Outcome done);

  QMainWindow* window_;
  SessionParts parts_;
  QMenu* recentMenu_ = nullptr;
  KeptSplitters keptSplitters_;
  QString currentFile_;
  QString lastError_;
  FamilyFileGate* gate_ = nullptr;
  bool opening_ = false;  // openInBackground in flight
  bool keepsRecent_ = true;
};

}  // namespace poslab::ui
