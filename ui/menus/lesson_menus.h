// The menu entries and keys of lessons and presentation mode:
//   File > Open Lesson…      (Ctrl+Shift+O) a lesson file of one's own
//   Help > Lessons           (Ctrl+L) shows or hides the Lessons panel
//   View > Presentation      (F11) enters or leaves presentation mode; Esc leaves it
//   PageDown / PageUp        the next / previous step of the open lesson
// The keys are window actions, so they work in presentation mode, where the menu bar is hidden.
#pragma once

namespace poslab::ui {

class MainWindow;

// Adds the entries to the window's File, View and Help menus (built before) and the keys to the
// window. Object names: actionOpenLesson, actionLessons, actionPresentation, actionLessonNext,
// actionLessonBack, actionLeavePresentation.
void installLessonMenus(MainWindow* window);

// On the very first start (remembered in QSettings as lessons/offered), a non-modal box offers
// to open the Lessons panel. Only the application calls it: tests and screenshots never see it.
void offerLessonsOnFirstStart(MainWindow* window);

}  // namespace poslab::ui
