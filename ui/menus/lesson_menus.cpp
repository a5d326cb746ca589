#include "menus/lesson_menus.h"

#include <QDockWidget>
#include <QFileDialog>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QSettings>

#include "error_report.h"
#include "lessons/lesson.h"
#include "lessons/lesson_player.h"

namespace poslab::ui {

namespace {
constexpr const char* kOfferedKey = "lessons/offered";
}  // namespace

void openLessonFile(QWidget* window, LessonPlayer* player, QDockWidget* dock) {
  const QString path = QFileDialog::getOpenFileName(
      window, QObject::tr("Open Lesson"), QString::fromStdString(poslab::lessonDirectory()),
      QObject::tr("PosLab lessons (*.json);;All files (*)"));
  if (path.isEmpty()) return;
  // Its modules load through the window's gate first (the notice, off the UI thread); a problem
  // goes to an error box.
  QPointer<QDockWidget> shown(dock);
  player->openFileInBackground(path, 0, [shown](bool ok, const QString&) {
    if (ok && shown) shown->show();
  });
}

void offerLessonsOnFirstStart(QWidget* window, QDockWidget* dock) {
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
  QObject::connect(yes, &QPushButton::clicked, dock, [dock] { dock->show(); });
  box->open();  // non-modal: never blocks the window or its training
}

}  // namespace poslab::ui
