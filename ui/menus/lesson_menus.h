// What the lesson entries of the menus do (the entries themselves: menu_bar.h; wired in
// app_shell.cpp): File > Open Lesson… reads a lesson file of one's own, and the first start
// offers the Lessons panel. Help > Lessons is the dock's own toggle action; View > Presentation,
// Esc, PageDown and PageUp call PresentationMode and LessonPlayer directly.
#pragma once

class QDockWidget;
class QWidget;

namespace poslab::ui {

class LessonPlayer;

// A file dialog, then the lesson opened in `player` and `dock` shown; an error box on a problem.
void openLessonFile(QWidget* window, LessonPlayer* player, QDockWidget* dock);

// On the very first start (remembered in QSettings as lessons/offered), a non-modal box offers
// to open the Lessons panel (`dock`). Only the application calls it: tests and screenshots never
// see it.
void offerLessonsOnFirstStart(QWidget* window, QDockWidget* dock);

}  // namespace poslab::ui
