// The lesson being followed and where in it: no widgets. Opening a lesson or moving to a step
// applies that step's state to the window (lesson_step_state.h); a step whose state is refused
// leaves the window and the current step as they were and says why (the problem names the step
// and the field). The Lessons panel, the menus, presentation mode and the command line drive it.
#pragma once

#include <QObject>
#include <QString>

#include <functional>
#include <memory>

#include "lessons/lesson_step_state.h"

class QWidget;

namespace poslab {
struct Lesson;
}

namespace poslab::ui {

class FamilyFileGate;

class LessonPlayer : public QObject {
  Q_OBJECT
 public:
  // `window` anchors error boxes and status messages.
  LessonPlayer(const LessonTargets& targets, QWidget* window, QObject* parent = nullptr);
  ~LessonPlayer() override;

  // The gate through which the window's commands load the TorchScript modules a lesson's steps
  // name (session/family_file_gate.h: the notice that loading runs code, once per window; the
  // modules checked off the UI thread). Without one, open() loads them on the calling thread.
  void setFamilyGate(FamilyFileGate* gate) { gate_ = gate; }

  // Reads FILE strictly (core's readLessonFile), checks every step's state against the window
  // (lesson_step_state.h) and opens it at `step` (0-based). False with *error naming the step and
  // the field (nothing changed) for a file that cannot be read or a step that cannot be shown.
  // The modules its steps name load on the calling thread (a caller without a user: screenshots,
  // tests); the window's commands use openFileInBackground.
  bool openFile(const QString& path, QString* error, int step = 0);
  // Whether it was opened, else the problem's first line (empty: the user declined the notice).
  using Outcome = std::function<void(bool ok, const QString& error)>;
  // openFile once every module its steps name has loaded through the gate (lessonFamilyNeeds), so
  // that no step runs module code on the UI thread; the window stays as it is until then. A
  // problem goes to an error box (object name "lessonError") and to `done`.
  void openFileInBackground(const QString& path, int step = 0, Outcome done = {});
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
  FamilyFileGate* gate_ = nullptr;
  std::unique_ptr<poslab::Lesson> lesson_;
  QString source_;
  QString file_;
  int index_ = 0;
  int trainingStep_ = -1;  // the step whose training setup the training tab holds (-1: none)
};

}  // namespace poslab::ui
