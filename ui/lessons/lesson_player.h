// The lesson being followed and where in it: no widgets. Opening a lesson or moving to a step
// applies that step's state to the window (lesson_step_state.h); a step whose state is refused
// leaves the window and the current step as they were and says why (the problem names the step
// and the field). The Lessons panel, the menus, presentation mode and the command line drive it.
#pragma once

#include <QObject>
#include <QString>

#include <memory>

#include "lessons/lesson_step_state.h"

class QWidget;

namespace poslab {
struct Lesson;
}

namespace poslab::ui {

class LessonPlayer : public QObject {
  Q_OBJECT
 public:
  // `window` anchors error boxes and status messages.
  LessonPlayer(const LessonTargets& targets, QWidget* window, QObject* parent = nullptr);
  ~LessonPlayer() override;

  // Reads FILE strictly (core's readLessonFile), checks every step's state against the window
  // (lesson_step_state.h) and opens it at `step` (0-based). False with *error naming the step and
  // the field (nothing changed) for a file that cannot be read or a step that cannot be shown.
  bool openFile(const QString& path, QString* error, int step = 0);
  // The same for a lesson already read; `source` names it in messages ("lesson file 'x'"),
  // `file` is where it came from (empty: nowhere).
  bool open(const poslab::Lesson& lesson, const QString& source, QString* error, int step = 0,
            const QString& file = {});
  // Moves to step `index` (0-based) and applies its state. False with *error (the step and the
  // window unchanged) when there is no lesson, the index is out of range or the state is refused.
  bool goTo(int index, QString* error);
  // Next and Back for the buttons and PageDown / PageUp: false at either end or on an error, which
  // goes to an error box (ui/error_report.h).
  bool next();
  bool back();
  void close();

  bool isOpen() const { return lesson_ != nullptr; }
  const poslab::Lesson* lesson() const { return lesson_.get(); }
  QString file() const { return file_; }  // the file it was read from (empty: none)
  int stepIndex() const { return index_; }
  int stepCount() const;

 Q_SIGNALS:
  // A lesson was opened or moved to another step (after the step's state was applied).
  void stepShown(int index);
  void closed();

 private:
  bool step(int delta);
  bool show(int index, QString* error);  // applies step `index` of lesson_

  LessonTargets targets_;
  QWidget* window_;
  std::unique_ptr<poslab::Lesson> lesson_;
  QString source_;
  QString file_;
  int index_ = 0;
  int trainingStep_ = -1;  // the step whose training setup the training tab holds (-1: none)
};

}  // namespace poslab::ui
