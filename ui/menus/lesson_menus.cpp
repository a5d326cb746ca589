#include "menus/lesson_menus.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>

#include "error_report.h"
#include "lessons/lesson.h"
#include "lessons/lesson_player.h"
#include "main_window.h"
#include "menus/file_menu.h"
#include "presentation/presentation_mode.h"

namespace poslab::ui {

namespace {

constexpr const char* kOfferedKey = "lessons/offered";

QMenu* menuNamed(MainWindow* window, const char* name) {
  return window->menuBar()->findChild<QMenu*>(name);
}

QAction* windowAction(MainWindow* window, const char* name, const QString& text,
                      const QKeySequence& keys) {
  auto* a = new QAction(text, window);
  a->setObjectName(name);
  a->setShortcut(keys);
  window->addAction(a);  // a window action: works while the menu bar is hidden
  return a;
}

void openLessonFile(MainWindow* window) {
  const QString path = QFileDialog::getOpenFileName(
      window, QObject::tr("Open Lesson"), QString::fromStdString(poslab::lessonDirectory()),
      QObject::tr("PosLab lessons (*.json);;All files (*)"));
  if (path.isEmpty()) return;
  QString error;
  if (!window->lessonPlayer()->openFile(path, &error)) {
    showError(window, {QObject::tr("Cannot open the lesson"), error},
              QStringLiteral("lessonError"));
    return;
  }
  window->lessonDock()->show();
}

}  // namespace

void installLessonMenus(MainWindow* window) {
  LessonPlayer* player = window->lessonPlayer();
  PresentationMode* presentation = window->presentation();

  QMenu* file = window->sessionController()->fileMenu();
  auto* open = new QAction(QObject::tr("Open &Lesson…"), window);
  open->setObjectName("actionOpenLesson");
  open->setShortcut(QKeySequence(QObject::tr("Ctrl+Shift+O")));
  open->setStatusTip(QObject::tr("A lesson file of your own (resources/lessons shows the format)"));
  // Right after Open Session.
  const QList<QAction*> items = file->actions();
  file->insertAction(items.size() > 1 ? items[1] : nullptr, open);
  window->addAction(open);
  QObject::connect(open, &QAction::triggered, window, [window] { openLessonFile(window); });

  if (QMenu* help = menuNamed(window, "menuHelp")) {
    QAction* lessons = window->lessonDock()->toggleViewAction();
    lessons->setObjectName("actionLessons");
    lessons->setText(QObject::tr("&Lessons"));
    lessons->setShortcut(QKeySequence(QObject::tr("Ctrl+L")));
    lessons->setStatusTip(QObject::tr("Short guided lessons through the three papers"));
    help->insertAction(help->actions().value(0), lessons);
    window->addAction(lessons);
  }

  auto* present = new QAction(QObject::tr("&Presentation"), window);
  present->setObjectName("actionPresentation");
  present->setShortcut(QKeySequence(Qt::Key_F11));
  present->setCheckable(true);
  present->setStatusTip(
      QObject::tr("Full screen for a projector: large text, thick lines, the lesson as caption"));
  if (QMenu* view = menuNamed(window, "menuView")) {
    view->addSeparator();
    view->addAction(present);
  }
  window->addAction(present);
  QObject::connect(present, &QAction::triggered, presentation, &PresentationMode::toggle);
  QObject::connect(presentation, &PresentationMode::activeChanged, present, &QAction::setChecked);

  QAction* leave = windowAction(window, "actionLeavePresentation",
                                QObject::tr("Leave presentation"), QKeySequence(Qt::Key_Escape));
  leave->setEnabled(false);  // Esc belongs to dialogs and fields outside presentation mode
  QObject::connect(leave, &QAction::triggered, presentation, &PresentationMode::leave);
  QObject::connect(presentation, &PresentationMode::activeChanged, leave, &QAction::setEnabled);

  QAction* next = windowAction(window, "actionLessonNext", QObject::tr("Next lesson step"),
                               QKeySequence(Qt::Key_PageDown));
  QAction* back = windowAction(window, "actionLessonBack", QObject::tr("Previous lesson step"),
                               QKeySequence(Qt::Key_PageUp));
  QObject::connect(next, &QAction::triggered, player, &LessonPlayer::next);
  QObject::connect(back, &QAction::triggered, player, &LessonPlayer::back);
  // Only while a lesson is open: otherwise the keys stay with lists and text fields.
  auto enable = [player, next, back] {
    next->setEnabled(player->isOpen());
    back->setEnabled(player->isOpen());
  };
  QObject::connect(player, &LessonPlayer::stepShown, window, enable);
  QObject::connect(player, &LessonPlayer::closed, window, enable);
  enable();
}

void offerLessonsOnFirstStart(MainWindow* window) {
  QSettings settings;
  if (settings.value(kOfferedKey, false).toBool()) return;
  settings.setValue(kOfferedKey, true);
  auto* box = new QMessageBox(QMessageBox::Question, QObject::tr("Welcome to PosLab"),
                              QObject::tr("New to PosLab? Short lessons walk through RoPE, decay "
                                          "and ALiBi, the Jordan shear, PJ-RoPE and PoPE, one "
                                          "step at a time.\n\nThey are always in Help > Lessons."),
                              QMessageBox::NoButton, window);
  box->setObjectName("lessonOffer");
  QPushButton* yes = box->addButton(QObject::tr("Open the lessons"), QMessageBox::AcceptRole);
  box->addButton(QObject::tr("Not now"), QMessageBox::RejectRole);
  box->setAttribute(Qt::WA_DeleteOnClose);
  QObject::connect(yes, &QPushButton::clicked, window, [window] { window->lessonDock()->show(); });
  box->open();  // non-modal: never blocks the window or its training
}

}  // namespace poslab::ui
