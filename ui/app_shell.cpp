#include "app_shell.h"

#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QTabWidget>
#include <QToolButton>
#include <QUndoStack>

#include "error_report.h"
#include "explorer/explorer_controller.h"
#include "explorer/parameter_panel.h"
#include "help/view_help.h"
#include "lessons/lesson_panel.h"
#include "lessons/lesson_player.h"
#include "main_window.h"
#include "menus/file_menu.h"
#include "menus/lesson_menus.h"
#include "menus/load_encoding.h"
#include "menus/presets_menu.h"
#include "menus/window_commands.h"
#include "presentation/presentation_mode.h"
#include "session/explorer_training_link.h"
#include "session/family_file_gate.h"
#include "training/explorer_link_row.h"
#include "training/training_panel.h"
#include "undo/parameter_undo.h"

namespace poslab::ui {

namespace {
constexpr int kNoteMs =
    15000;  // a note on what a command did (a preset, Show in Explorer) stays this long
}  // namespace

AppShell::AppShell() : window_(std::make_unique<MainWindow>()) {
  MainWindow* w = window_.get();
  TrainingPanel* training = w->trainingPanel();
  explorer_ = new ExplorerController(w->explorerWidgets(), w);
  QObject::connect(w->tabs(), &QTabWidget::currentChanged, explorer_, [this] {
    const WindowView v = window_->currentView();
    explorer_->setCurrentView(v == WindowView::Training
                                  ? std::nullopt
                                  : std::optional<ExplorerView>(static_cast<ExplorerView>(v)));
  });
  QObject::connect(training, &TrainingPanel::statusMessage, w,
                   [w](const QString& m) { showStatus(w, m); });
  explorer_->setCurrentView(ExplorerView::Kernel);
  undo_ = new ParameterUndo(w->parameters(), w);

  LessonTargets lessonTargets{sessionParts(),
                              [training](int view) { training->viewTabs()->setCurrentIndex(view); },
                              [training] { training->play(); }};
  lessons_ = new LessonPlayer(lessonTargets, w, w);
  lessonPanel_ = new LessonPanel(lessons_, w->lessonDock());
  w->lessonDock()->setWidget(lessonPanel_);
  help_ = std::make_unique<HelpWindow>(w);
  QObject::connect(lessonPanel_, &LessonPanel::helpRequested, w,
                   [this] { help_->showNote(QStringLiteral("lessons")); });

  QStringList titles;
  for (int i = 0; i < kWindowViewCount; ++i) titles << w->tabs()->tabText(i);
  actions_ = buildMenuBar(w, undo_->stack(), w->lessonDock()->toggleViewAction(), titles);
  familyGate_ = new FamilyFileGate(w, w);
  sessions_ = new SessionController(w, sessionParts(), actions_.recent, w->keptSplitters());
  sessions_->setFamilyGate(familyGate_);
  lessons_->setFamilyGate(familyGate_);
  commands_ = new WindowCommands(w, w, w->explorerWidgets(), training);
  encodings_ = new EncodingLoader(w, w->parameters(), familyGate_, w);
  presentation_ =
      new PresentationMode(w, {w->leftColumn(), training->setupArea()}, lessons_, w->caption());
  wireMenus();
}

AppShell::~AppShell() = default;

QUndoStack* AppShell::undoStack() const {
  return undo_->stack();
}

SessionParts AppShell::sessionParts() const {
  return {window_->explorerWidgets(), window_->trainingPanel(), window_.get(),
          undo_ ? undo_->stack() : nullptr};
}

bool AppShell::loadPreset(const QString& nameOrPath, QString* error, QString* note) {
  return loadPresetIntoTraining(window_->trainingPanel(), window_.get(), nameOrPath, error, note);
}

void AppShell::loadPresetInBackground(const QString& nameOrPath,
                                      std::function<void(bool, const QString&)> done) {
  MainWindow* w = window_.get();
  auto refuse = [w, done](const QString& error) {
    if (!error.isEmpty())
      showError(w, {QObject::tr("Cannot load preset"), error}, QStringLiteral("presetError"));
    if (done) done(false, error.section('\n', 0, 0));
  };
  familyGate_->load(
      presetFamilyNeeds(nameOrPath), QObject::tr("preset '%1'").arg(nameOrPath),
      [this, w, nameOrPath, refuse, done] {
        QString error, note;
        if (!loadPreset(nameOrPath, &error, &note)) return refuse(error);
        w->trainingPanel()->play();
        showStatus(w, note, kNoteMs);
        if (done) done(true, {});
      },
      refuse);
}

bool AppShell::trainFromHere(QString* error) {
  ParameterPanel* explorer = window_->parameters();
  TrainingPanel* training = window_->trainingPanel();
  const poslab::ExperimentSpec spec =
      trainFromExplorer(training->experiment(), explorer->familyId(), explorer->values());
  if (!training->setExperiment(spec, error)) return false;
  window_->showView(WindowView::Training);
  return true;
}

bool AppShell::showRunInExplorer(int run, int head, QString* error) {
  TrainingPanel* training = window_->trainingPanel();
  if (run < 0 || run >= training->runCount()) {
    *error = QObject::tr("no training run to show: press Play or Step in the training tab first");
    return false;
  }
  const std::string family = training->runFamily(run);
  const poslab::ExperimentSpec ran = training->runningExperiment();
  const auto start = ran.familyParams.find(family);
  const ExplorerValues shown = explorerValuesFromRun(
      family, ran.base.model.heads, head,
      start == ran.familyParams.end() ? std::map<std::string, double>{} : start->second,
      training->lastSnapshot(run));
  if (!shown.error.isEmpty()) {
    *error = QObject::tr("run %1 (%2): %3")
                 .arg(run + 1)
                 .arg(QString::fromStdString(family))
                 .arg(shown.error);
    return false;
  }
  ParameterPanel* explorer = window_->parameters();
  undo_->stack()->beginMacro(QObject::tr("Show run in explorer"));
  explorer->setFamily(family);
  for (const auto& [name, value] : shown.values) explorer->setValue(name, value);
  undo_->stack()->endMacro();
  window_->showView(WindowView::Kernel);
  showStatus(window_.get(), shown.note, kNoteMs);
  return true;
}

void AppShell::wireMenus() {
  MainWindow* w = window_.get();
  TrainingPanel* training = w->trainingPanel();
  const MenuActions& m = actions_;
  auto on = [](QAction* action, auto* receiver, auto slot) {
    QObject::connect(action, &QAction::triggered, receiver, slot);
  };

  on(m.openSession, sessions_, &SessionController::open);
  on(m.openLesson, w, [this] { openLessonFile(window_.get(), lessons_, window_->lessonDock()); });
  on(m.loadEncoding, encodings_, &EncodingLoader::request);
  on(m.saveSession, sessions_, &SessionController::save);
  on(m.saveSessionAs, sessions_, &SessionController::saveAs);
  on(m.saveSessionWithModels, sessions_, &SessionController::saveWithModelsAs);
  on(m.copyState, sessions_, &SessionController::copyState);
  on(m.pasteState, sessions_, &SessionController::pasteState);
  on(m.exportImage, commands_, &WindowCommands::exportCurrentImage);
  on(m.exportData, commands_, &WindowCommands::exportCurrentData);
  on(m.exportReport, commands_, &WindowCommands::exportRunReport);
  on(m.quit, w, &QWidget::close);

  fillPresetsMenu(m.presets, [this](const QString& name) { loadPresetInBackground(name); });

  for (int i = 0; i < kWindowViewCount; ++i)
    on(m.views[static_cast<size_t>(i)], w, [w, i] { w->showView(static_cast<WindowView>(i)); });
  on(m.presentation, presentation_, &PresentationMode::toggle);
  on(m.leavePresentation, presentation_, &PresentationMode::leave);
  QObject::connect(presentation_, &PresentationMode::activeChanged, m.presentation,
                   &QAction::setChecked);
  QObject::connect(presentation_, &PresentationMode::activeChanged, m.leavePresentation,
                   &QAction::setEnabled);

  on(m.playPause, training, [training] {
    if (training->isPlaying())
      training->pause();
    else
      training->play();
  });
  on(m.step, training, &TrainingPanel::stepOnce);
  on(m.reset, training, &TrainingPanel::reset);
  on(m.trainFromHere, w, [this] {
    QString error;
    if (!trainFromHere(&error))
      showError(window_.get(), {QObject::tr("Cannot train from here"), error},
                QStringLiteral("trainFromHereError"));
  });
  on(m.showInExplorer, w, [this] {
    QString error;
    const ExplorerLinkRow* link = window_->trainingPanel()->explorerLink();
    if (!showRunInExplorer(link->run(), link->head(), &error))
      showError(window_.get(), {QObject::tr("Cannot show the run in the explorer"), error},
                QStringLiteral("showInExplorerError"));
  });

  w->trainFromHereButton()->setDefaultAction(m.trainFromHere);
  training->explorerLink()->button()->setDefaultAction(m.showInExplorer);

  on(m.shortcuts, commands_, [this] { commands_->showShortcutsDialog(); });
  on(m.whatAmILookingAt, w, [this, w] { help_->showView(w->currentView()); });

  on(m.lessonNext, lessons_, &LessonPlayer::next);
  on(m.lessonBack, lessons_, &LessonPlayer::back);
  // Only while a lesson is open: otherwise the keys stay with lists and text fields.
  auto enable = [this] {
    actions_.lessonNext->setEnabled(lessons_->isOpen());
    actions_.lessonBack->setEnabled(lessons_->isOpen());
  };
  QObject::connect(lessons_, &LessonPlayer::stepShown, w, enable);
  QObject::connect(lessons_, &LessonPlayer::closed, w, enable);
  enable();

  QObject::connect(w->tabs(), &QTabWidget::currentChanged, w, [this] { onViewChanged(); });
  onViewChanged();
}

void AppShell::onViewChanged() {
  const WindowView v = window_->currentView();
  actions_.views[static_cast<size_t>(v)]->setChecked(true);
  const bool training = v == WindowView::Training;
  for (QAction* a : {actions_.playPause, actions_.step, actions_.reset}) a->setEnabled(training);
  actions_.exportData->setEnabled(!training);
  actions_.trainFromHere->setEnabled(!training);
  actions_.showInExplorer->setEnabled(training);
}

}  // namespace poslab::ui
