#include "menus/file_menu.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QPointer>
#include <QRegularExpression>
#include <QSettings>
#include <QSplitter>

#include "error_report.h"
#include "session/family_file_gate.h"
#include "session/session_families.h"
#include "session/session_io.h"
#include "session/session_state.h"
#include "training/training_panel.h"

namespace poslab::ui {

namespace {

// A run's family as part of its checkpoint's file name: the id, or for a family loaded from a
// file (file:PATH) "file-" and the file's base name; characters a name should not hold become _.
QString checkpointName(const QString& family) {
  QString name = family.startsWith(QLatin1String("file:"))
                     ? QStringLiteral("file-") + QFileInfo(family.mid(5)).completeBaseName()
                     : family;
  for (QChar& c : name)
    if (!c.isLetterOrNumber() && c != '-' && c != '_' && c != '.') c = '_';
  return name;
}

const char* const kRecentKey = "session/recentFiles";
const char* const kDirKey = "session/lastDirectory";
const char* const kFilter = "PosLab sessions (*.poslab);;JSON (*.json);;All files (*)";
}  // namespace

SessionController::SessionController(QMainWindow* window, const SessionParts& parts,
                                     QMenu* recentMenu, KeptSplitters keptSplitters)
    : QObject(window),
      window_(window),
      parts_(parts),
      recentMenu_(recentMenu),
      keptSplitters_(std::move(keptSplitters)) {
  setObjectName("sessionController");
  connect(recentMenu_, &QMenu::aboutToShow, this, &SessionController::rebuildRecentMenu);
  rebuildRecentMenu();
}

QString SessionController::stateString() const {
  return encodeStateString(captureSession(parts_));
}

bool SessionController::loadFile(const QString& path, QString* error) {
  SessionState state;
  // Its file families first, as saved: reading its training setup checks every family.
  if (!preloadSessionFamilies(path, error)) return false;
  if (!loadSessionFile(path, &state, error)) return false;  // its errors name the file
  if (!applySession(parts_, state, error)) {
    *error = tr("session file %1: %2").arg(path, *error);
    return false;
  }
  lastError_.clear();
  setCurrentFile(path);
  addRecent(path);
  return true;
}

bool SessionController::openFile(const QString& path) {
  QString error;
  if (!loadFile(path, &error)) {
    if (!QFileInfo::exists(path)) pruneRecentFiles();
    showError(tr("Cannot open session"), error + tr("\n\nNothing was changed."));
    return false;
  }
  showMessage(tr("Opened %1").arg(QDir::toNativeSeparators(path)));
  return true;
}

void SessionController::openInBackground(const QString& path, Outcome done) {
  auto finish = [done](bool ok, const QString& error) {
    if (done) done(ok, error.section('\n', 0, 0));
  };
  if (!gate_) {
    const bool ok = openFile(path);
    return finish(ok, ok ? QString() : lastError_);
  }
  const std::vector<FamilyFileNeed> needs = sessionFileNeeds(path);
  if (opening_ || (gate_->busy() && !notLoaded(needs).empty())) {
    const QString note = tr("Still opening a session or loading encodings: try again when done");
    showMessage(note);
    return finish(false, note);
  }
  opening_ = true;
  QPointer<SessionController> self(this);
  gate_->load(
      needs, tr("session file %1").arg(path),
      [self, path, finish] {
        if (self) self->openWithTrainedModels(path, finish);
      },
      [self, finish](const QString& error) {
        if (!self) return;
        self->opening_ = false;
        if (error.isEmpty())
          self->showMessage(tr("Nothing was opened: its encodings were not loaded"));
        else
          self->showError(tr("Cannot open session"), error + tr("\n\nNothing was changed."));
        finish(false, error);
      });
}

void SessionController::openWithTrainedModels(const QString& path, Outcome done) {
  // Its modules are loaded now, so the file reads; openFile names any problem.
  SessionState state;
  QString ignored;
  QStringList checkpoints;
  if (loadSessionFile(path, &state, &ignored))
    for (const SessionCheckpoint& c : state.checkpoints)
      checkpoints << QString::fromStdString(c.file);
  if (checkpoints.isEmpty()) {
    opening_ = false;
    const bool ok = openFile(path);
    return done(ok, ok ? QString() : lastError_);
  }
  showMessage(
      tr("Reading %n trained model(s) of %1…", nullptr, static_cast<int>(checkpoints.size()))
          .arg(QDir::toNativeSeparators(path)));
  TrainingPanel* panel = parts_.training;
  QPointer<SessionController> self(this);
  panel->preloadCheckpoints(checkpoints, [self, panel, path, done](const QString& error) {
    if (!self) return;
    SessionController& c = *self;
    c.opening_ = false;
    if (!error.isEmpty()) {
      const QString line = tr("session file %1: trained models: %2").arg(path, error);
      c.showError(tr("Cannot open session"), line + tr("\n\nNothing was changed."));
      return done(false, line);
    }
    const bool ok = c.openFile(path);  // takes the models read above
    panel->dropPreloadedCheckpoints();
    done(ok, ok ? QString() : c.lastError_);
  });
}

bool SessionController::saveFile(const QString& path) {
  QString error;
  if (!saveSessionFile(path, captureSession(parts_), &error)) {
    showError(tr("Cannot save session"), error);
    return false;
  }
  lastError_.clear();
  setCurrentFile(path);
  addRecent(path);
  showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)));
  return true;
}

bool SessionController::saveFileWithModels(const QString& path) {
  TrainingPanel* panel = parts_.training;
  bool trained = false;
  for (int i = 0; i < panel->runCount(); ++i) trained = trained || panel->runStep(i) > 0;
  if (!trained) {
    showError(tr("Nothing trained yet"),
              tr("No training run has taken a step yet, so there is no trained model to save: "
                 "press Play or Step in the training tab first.\n\nSave Session saves the setup "
                 "alone."));
    return false;
  }
  const QFileInfo info(path);
  const QString abs = info.absoluteFilePath();
  const QString folder = info.fileName() + ".d";  // next to FILE: a.poslab -> a.poslab.d
  const QDir dir = info.absoluteDir();
  if (!dir.mkpath(folder)) {
    showError(tr("Cannot save session"), tr("cannot create the folder %1 for the trained models")
                                             .arg(QDir::toNativeSeparators(dir.filePath(folder))));
    return false;
  }
  // The setup the runs were started from, not what the controls say now: the checkpoints must
  // match it, or the session could never be opened again.
  SessionState setup = captureSession(parts_);
  setup.training = panel->runningExperiment();
  setup.familyFiles = usedFamilyFiles(setup);
  QStringList relative, paths;
  for (int i = 0; i < panel->runCount(); ++i) {
    relative << QStringLiteral("%1/run%2-%3.pt")
                    .arg(folder)
                    .arg(i)
                    .arg(checkpointName(QString::fromStdString(panel->runFamily(i))));
    paths << dir.filePath(relative.back());
  }
  QPointer<SessionController> self(this);
  auto done = [self, abs, setup, relative, dir, folder](
                  const std::vector<TrainingPanel::SavedCheckpoint>& saved, const QString& error) {
    if (!self) return;
    SessionController& c = *self;
    if (!error.isEmpty()) {
      c.showError(tr("Cannot save session"),
                  error + tr("\n\n%1 was not written.").arg(QDir::toNativeSeparators(abs)));
      Q_EMIT c.sessionSaved(abs, error);
      return;
    }
    SessionState state = setup;
    long long minStep = -1;
    for (const auto& s : saved) {
      state.checkpoints.push_back({s.family, relative[s.run].toStdString(), s.step});
      minStep = minStep < 0 ? s.step : std::min(minStep, s.step);
    }
    QString problem;
    if (!saveSessionFile(abs, state, &problem)) {
      c.showError(tr("Cannot save session"), problem);
      Q_EMIT c.sessionSaved(abs, problem);
      return;
    }
    // Checkpoints of an earlier save with more runs would only confuse: remove them.
    const QDir models(dir.filePath(folder));
    const QRegularExpression ours(QStringLiteral("^run\\d+-.+\\.pt$"));
    for (const QString& name : models.entryList(QDir::Files))
      if (ours.match(name).hasMatch() && !relative.contains(folder + "/" + name))
        QFile::remove(models.filePath(name));
    c.lastError_.clear();
    c.setCurrentFile(abs);
    c.addRecent(abs);
    c.showMessage(tr("Saved %1 with %2 trained model(s) (step %3)")
                      .arg(QDir::toNativeSeparators(abs))
                      .arg(saved.size())
                      .arg(minStep));
    Q_EMIT c.sessionSaved(abs, QString());
  };
  QString error;
  if (!panel->saveCheckpoints(paths, done, &error)) {
    showError(tr("Cannot save session"), error);
    return false;
  }
  showMessage(tr("Saving %1 with %2 trained model(s)…")
                  .arg(QDir::toNativeSeparators(abs))
                  .arg(paths.size()));
  return true;
}

namespace {
// The families a state string names, as decodeStateJson reads them (none when it cannot).
std::vector<FamilyFileNeed> stateStringNeeds(const QString& text) {
  nlohmann::json j;
  QString ignored;  // applyStateString names the problem
  return decodeStateJson(text, &j, &ignored) ? familyFileNeeds(j, QDir())
                                             : std::vector<FamilyFileNeed>{};
}
}  // namespace

bool SessionController::applyStateString(const QString& text) {
  SessionState state;
  QString error;
  // Its file families first, as saved: reading its training setup checks every family.
  if (const QString families = loadFamilyNeeds(stateStringNeeds(text)); !families.isEmpty()) {
    showError(tr("Cannot paste state"),
              tr("the state string: %1").arg(families) + tr("\n\nNothing was changed."));
    return false;
  }
  const bool decoded = decodeStateString(text, &state, &error);
  if (decoded && !state.checkpoints.empty())
    error =
        tr("the state string lists trained models; they live in files next to a session: "
           "open the .poslab file instead");
  bool applied = false;
  if (decoded && state.checkpoints.empty()) {
    applied = applySession(parts_, state, &error);
    // Named like a session file's problems are ("session file X: field ..."), by their source.
    if (!applied) error = tr("the state string: %1").arg(error);
  }
  if (!applied) {
    showError(tr("Cannot paste state"), error + tr("\n\nNothing was changed."));
    return false;
  }
  lastError_.clear();
  showMessage(tr("State pasted"));
  return true;
}

void SessionController::applyStateStringInBackground(const QString& text) {
  if (!gate_) {
    applyStateString(text);
    return;
  }
  gate_->load(
      stateStringNeeds(text), tr("the state string"), [this, text] { applyStateString(text); },
      [this](const QString& error) {
        if (error.isEmpty())
          showMessage(tr("Nothing was pasted: its encodings were not loaded"));
        else
          showError(tr("Cannot paste state"), error + tr("\n\nNothing was changed."));
      });
}

void SessionController::open() {
  QSettings settings;
  const QString path = QFileDialog::getOpenFileName(
      window_, tr("Open Session"), settings.value(kDirKey).toString(), tr(kFilter));
  if (path.isEmpty()) return;
  settings.setValue(kDirKey, QFileInfo(path).absolutePath());
  openInBackground(path);
}

bool SessionController::save() {
  return currentFile_.isEmpty() ? saveAs() : saveFile(currentFile_);
}

bool SessionController::saveAs() {
  QSettings settings;
  const QString start = currentFile_.isEmpty()
                            ? QDir(settings.value(kDirKey).toString()).filePath("session.poslab")
                            : currentFile_;
  QString path = QFileDialog::getSaveFileName(window_, tr("Save Session As"), start, tr(kFilter));
  if (path.isEmpty()) return false;
  if (QFileInfo(path).suffix().isEmpty()) path += ".poslab";
  settings.setValue(kDirKey, QFileInfo(path).absolutePath());
  return saveFile(path);
}

bool SessionController::saveWithModelsAs() {
  QSettings settings;
  const QString start = currentFile_.isEmpty()
                            ? QDir(settings.value(kDirKey).toString()).filePath("session.poslab")
                            : currentFile_;
  QString path = QFileDialog::getSaveFileName(window_, tr("Save Session with Trained Models"),
                                              start, tr(kFilter));
  if (path.isEmpty()) return false;
  if (QFileInfo(path).suffix().isEmpty()) path += ".poslab";
  settings.setValue(kDirKey, QFileInfo(path).absolutePath());
  return saveFileWithModels(path);
}

void SessionController::copyState() {
  const QString s = stateString();
  QApplication::clipboard()->setText(s);
  showMessage(
      tr("State copied to the clipboard (%1 characters); Paste State in any PosLab applies it")
          .arg(s.size()));
}

void SessionController::pasteState() {
  applyStateStringInBackground(QApplication::clipboard()->text());
}

QStringList SessionController::recentFiles() const {
  return QSettings().value(kRecentKey).toStringList();
}

QStringList SessionController::pruneRecentFiles() {
  QStringList kept, gone;
  for (const QString& f : recentFiles()) (QFileInfo::exists(f) ? kept : gone) << f;
  if (gone.isEmpty()) return gone;
  QSettings().setValue(kRecentKey, kept);
  QStringList names;
  for (const QString& g : gone) names << QDir::toNativeSeparators(g);
  showMessage(tr("Removed from Open Recent (file no longer exists): %1").arg(names.join(", ")));
  return gone;
}

void SessionController::addRecent(const QString& path) {
  if (!keepsRecent_) return;
  const QString abs = QFileInfo(path).absoluteFilePath();
  QStringList list = recentFiles();
  list.removeAll(abs);
  list.prepend(abs);
  while (list.size() > kMaxRecent) list.removeLast();
  QSettings().setValue(kRecentKey, list);
  rebuildRecentMenu();
}

void SessionController::rebuildRecentMenu() {
  pruneRecentFiles();
  recentMenu_->clear();
  const QStringList list = recentFiles();
  for (int i = 0; i < list.size(); ++i) {
    const QString path = list[i];
    QAction* a =
        recentMenu_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()));
    a->setToolTip(QDir::toNativeSeparators(path));
    a->setStatusTip(QDir::toNativeSeparators(path));
    a->setData(path);
    connect(a, &QAction::triggered, this, [this, path] { openInBackground(path); });
  }
  if (list.isEmpty())
    recentMenu_->addAction(tr("(none)"))->setEnabled(false);
  else {
    recentMenu_->addSeparator();
    connect(recentMenu_->addAction(tr("Clear List")), &QAction::triggered, this, [this] {
      QSettings().remove(kRecentKey);
      rebuildRecentMenu();
    });
  }
  recentMenu_->setToolTipsVisible(true);
}

void SessionController::showError(const QString& title, const QString& text) {
  lastError_ = text;
  ui::showError(window_, {title, text}, QStringLiteral("sessionError"));
}

void SessionController::showMessage(const QString& text) {
  showStatus(window_, text);
}

void SessionController::setCurrentFile(const QString& path) {
  currentFile_ = QFileInfo(path).absoluteFilePath();
  window_->setWindowFilePath(currentFile_);
  window_->setWindowTitle(tr("%1 — PosLab").arg(QFileInfo(path).fileName()));
}

void SessionController::persistLayout() {
  QSettings settings;
  window_->restoreGeometry(settings.value("window/geometry").toByteArray());
  window_->restoreState(settings.value("window/state").toByteArray());
  for (const auto& [name, splitter] : keptSplitters_)
    splitter->restoreState(settings.value(QStringLiteral("window/") + name).toByteArray());
  window_->installEventFilter(this);
}

void SessionController::saveLayout() const {
  QSettings settings;
  settings.setValue("window/geometry", window_->saveGeometry());
  settings.setValue("window/state", window_->saveState());
  for (const auto& [name, splitter] : keptSplitters_)
    settings.setValue(QStringLiteral("window/") + name, splitter->saveState());
}

bool SessionController::eventFilter(QObject* watched, QEvent* event) {
  if (watched == window_ && event->type() == QEvent::Close) saveLayout();
  return QObject::eventFilter(watched, event);
}

}  // namespace poslab::ui
