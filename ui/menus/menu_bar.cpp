#include "menus/menu_bar.h"

#include <QAction>
#include <QActionGroup>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QUndoStack>

namespace poslab::ui {

namespace {

QAction* addAction(QMainWindow* window, QMenu* menu, const char* name, const QString& text,
                   const QList<QKeySequence>& keys = {}, const QString& tip = {}) {
  auto* a = new QAction(text, window);
  a->setObjectName(name);
  QList<QKeySequence> bound;  // a standard key the platform does not bind is empty: none
  for (const QKeySequence& k : keys)
    if (!k.isEmpty()) bound << k;
  if (!bound.isEmpty()) a->setShortcuts(bound);
  if (!tip.isEmpty()) a->setStatusTip(tip);
  if (menu) menu->addAction(a);
  return a;
}

QMenu* addMenu(QMenuBar* bar, const char* name, const QString& title) {
  QMenu* menu = bar->addMenu(title);
  menu->setObjectName(name);
  return menu;
}

void buildFileMenu(QMainWindow* w, MenuActions& m) {
  m.file = addMenu(w->menuBar(), "fileMenu", QObject::tr("&File"));
  m.openSession =
      addAction(w, m.file, "openSession", QObject::tr("&Open Session..."), {QKeySequence::Open},
                QObject::tr("Load a .poslab session: parameters, view settings, tab and training "
                            "setup"));
  m.openLesson =
      addAction(w, m.file, "actionOpenLesson", QObject::tr("Open &Lesson…"),
                {QKeySequence(QObject::tr("Ctrl+Shift+O"))},
                QObject::tr("A lesson file of your own (resources/lessons shows the format)"));
  w->addAction(m.openLesson);
  m.loadEncoding = addAction(
      w, m.file, "actionLoadEncoding", QObject::tr("Load &Encoding…"), {},
      QObject::tr("A position family of your own, written in PyTorch and saved as TorchScript "
                  "(docs/ENCODINGS.md); loading it runs its code"));
  m.recent = m.file->addMenu(QObject::tr("Open &Recent"));
  m.recent->setObjectName("recentMenu");
  m.saveSession =
      addAction(w, m.file, "saveSession", QObject::tr("&Save Session"), {QKeySequence::Save},
                QObject::tr("Save the whole state to the current .poslab file"));
  m.saveSessionAs =
      addAction(w, m.file, "saveSessionAs", QObject::tr("Save Session &As..."),
                {QKeySequence::SaveAs}, QObject::tr("Save the whole state to a new .poslab file"));
  m.saveSessionWithModels = addAction(
      w, m.file, "saveSessionWithModels", QObject::tr("Save Session with &Trained Models..."),
      {QKeySequence(QObject::tr("Ctrl+Alt+S"))},
      QObject::tr("Save the whole state and each training run's trained model "
                  "(FILE.poslab.d/*.pt); opening it continues training from the saved step"));
  m.file->addSeparator();
  m.copyState = addAction(
      w, m.file, "copyState", QObject::tr("&Copy State"),
      {QKeySequence(QObject::tr("Ctrl+Shift+C"))},
      QObject::tr("Copy the whole state as one line of text, to paste into another PosLab"));
  m.pasteState = addAction(w, m.file, "pasteState", QObject::tr("&Paste State"),
                           {QKeySequence(QObject::tr("Ctrl+Shift+V"))},
                           QObject::tr("Apply a state string from the clipboard"));
  m.file->addSeparator();
  m.exportMenu = m.file->addMenu(QObject::tr("&Export"));
  m.exportMenu->setObjectName("menuExport");
  m.file->addSeparator();
  m.exportImage = addAction(w, m.exportMenu, "actionExportImage",
                            QObject::tr("Current view as &image (PNG, SVG, PDF)…"),
                            {QKeySequence(QObject::tr("Ctrl+E"))},
                            QObject::tr("The shown plot as PNG, SVG or PDF (by the file's "
                                        "extension); on the training tab, the run report"));
  m.exportData =
      addAction(w, m.exportMenu, "actionExportData", QObject::tr("Current view's &data (CSV)…"),
                {QKeySequence(QObject::tr("Ctrl+Shift+E"))},
                QObject::tr("The shown plot's data, one column per x and per curve"));
  m.exportMenu->addSeparator();
  m.exportReport = addAction(
      w, m.exportMenu, "actionExportReport", QObject::tr("&Run report (Markdown + figures)…"), {},
      QObject::tr("The training tab: setup, latest evaluation and every plot"));
  m.quit = addAction(w, m.file, "quit", QObject::tr("&Quit"), {QKeySequence::Quit});
}

void buildViewMenu(QMainWindow* w, MenuActions& m, const QStringList& titles) {
  m.view = addMenu(w->menuBar(), "menuView", QObject::tr("&View"));
  auto* group = new QActionGroup(m.view);
  group->setExclusive(true);
  for (int i = 0; i < kWindowViewCount; ++i) {
    const QByteArray name = "actionView" + QByteArray::number(i + 1);
    QAction* a = addAction(w, m.view, name.constData(), titles.value(i),
                           {QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i))});
    a->setCheckable(true);
    group->addAction(a);
    m.views[static_cast<size_t>(i)] = a;
  }
  m.view->addSeparator();
  m.presentation = addAction(
      w, m.view, "actionPresentation", QObject::tr("&Presentation"), {QKeySequence(Qt::Key_F11)},
      QObject::tr("Full screen for a projector: large text, thick lines, the lesson as caption"));
  m.presentation->setCheckable(true);
  w->addAction(m.presentation);
}

void buildTrainingMenu(QMainWindow* w, MenuActions& m) {
  m.training = addMenu(w->menuBar(), "menuTraining", QObject::tr("&Training"));
  const QString tip = QObject::tr("Live training tab only");
  m.playPause = addAction(w, m.training, "actionPlayPause", QObject::tr("&Play / Pause"),
                          {QKeySequence(Qt::CTRL | Qt::Key_P), QKeySequence(Qt::Key_Space)}, tip);
  m.step = addAction(w, m.training, "actionStep", QObject::tr("&Step"),
                     {QKeySequence(Qt::CTRL | Qt::Key_Period)}, tip);
  m.reset = addAction(w, m.training, "actionReset", QObject::tr("&Reset"),
                      {QKeySequence(Qt::CTRL | Qt::Key_R)}, tip);
  m.training->addSeparator();
  m.trainFromHere =
      addAction(w, m.training, "actionTrainFromHere", QObject::tr("&Train from Here"),
                {QKeySequence(Qt::CTRL | Qt::Key_T)},
                QObject::tr("A run of the explorer's family, starting from the explorer's values"));
  m.showInExplorer = addAction(
      w, m.training, "actionShowInExplorer", QObject::tr("Show in E&xplorer"),
      {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T)},
      QObject::tr("The first run's learned position parameters (mean over layers and heads) in "
                  "the explorer"));
}

void buildHelpMenu(QMainWindow* w, MenuActions& m, QAction* lessons) {
  m.help = addMenu(w->menuBar(), "menuHelp", QObject::tr("&Help"));
  m.lessons = lessons;
  lessons->setObjectName("actionLessons");
  lessons->setText(QObject::tr("&Lessons"));
  lessons->setShortcut(QKeySequence(QObject::tr("Ctrl+L")));
  lessons->setStatusTip(QObject::tr("Short guided lessons through the three papers"));
  m.help->addAction(lessons);
  w->addAction(lessons);
  m.shortcuts = addAction(w, m.help, "actionShortcuts", QObject::tr("&Keyboard shortcuts"),
                          {QKeySequence(Qt::Key_F1)});
  m.whatAmILookingAt = addAction(
      w, m.help, "actionWhatAmILookingAt", QObject::tr("&What am I looking at?"),
      {QKeySequence(Qt::SHIFT | Qt::Key_F1)}, QObject::tr("A short note on the current tab"));
}

// A window action: its key works while the menu bar is hidden.
QAction* windowAction(QMainWindow* w, const char* name, const QString& text,
                      const QKeySequence& keys) {
  QAction* a = addAction(w, nullptr, name, text, {keys});
  w->addAction(a);
  return a;
}

}  // namespace

std::vector<QAction*> MenuActions::all() const {
  std::vector<QAction*> a = {openSession,
                             openLesson,
                             loadEncoding,
                             saveSession,
                             saveSessionAs,
                             saveSessionWithModels,
                             copyState,
                             pasteState,
                             exportImage,
                             exportData,
                             exportReport,
                             quit,
                             undo,
                             redo,
                             presentation,
                             playPause,
                             step,
                             reset,
                             trainFromHere,
                             showInExplorer,
                             lessons,
                             shortcuts,
                             whatAmILookingAt,
                             lessonNext,
                             lessonBack,
                             leavePresentation};
  a.insert(a.end(), views.begin(), views.end());
  return a;
}

std::vector<QMenu*> MenuActions::menus() const {
  return {file, recent, exportMenu, presets, edit, view, training, help};
}

MenuActions buildMenuBar(QMainWindow* w, QUndoStack* undo, QAction* lessonsToggle,
                         const QStringList& viewTitles) {
  MenuActions m;
  buildFileMenu(w, m);
  m.presets = addMenu(w->menuBar(), "presetsMenu", QObject::tr("&Presets"));
  m.presets->setToolTipsVisible(true);

  m.edit = addMenu(w->menuBar(), "menuEdit", QObject::tr("&Edit"));
  m.undo = undo->createUndoAction(w, QObject::tr("&Undo"));
  m.undo->setObjectName("actionUndo");
  m.undo->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Z)});
  m.redo = undo->createRedoAction(w, QObject::tr("&Redo"));
  m.redo->setObjectName("actionRedo");
  m.redo->setShortcuts(
      {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});
  m.edit->addAction(m.undo);
  m.edit->addAction(m.redo);

  buildViewMenu(w, m, viewTitles);
  buildTrainingMenu(w, m);
  buildHelpMenu(w, m, lessonsToggle);

  m.leavePresentation =
      windowAction(w, "actionLeavePresentation", QObject::tr("Leave presentation"),
                   QKeySequence(Qt::Key_Escape));
  m.leavePresentation->setEnabled(false);  // Esc belongs to dialogs and fields outside it
  m.lessonNext = windowAction(w, "actionLessonNext", QObject::tr("Next lesson step"),
                              QKeySequence(Qt::Key_PageDown));
  m.lessonBack = windowAction(w, "actionLessonBack", QObject::tr("Previous lesson step"),
                              QKeySequence(Qt::Key_PageUp));
  return m;
}

}  // namespace poslab::ui
