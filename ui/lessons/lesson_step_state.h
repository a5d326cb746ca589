// What the window shows at a lesson step (core's lessons/lesson.h). A step's state is a session
// object (docs/SESSIONS.md) in which every field is optional; it adds to the steps before it: the
// state at step k is the states of steps 1..k merged in order (each top-level field, tab,
// explorer or training, replaces the earlier one; each view under "views" replaces that view's
// settings), over what the window shows. So step k looks the same whether it is reached by Next,
// Back or opened directly. The merged state goes through the session's own reader and checks
// (sessionFromJson, validateSession, applySession): all or nothing, the problem named by step and
// field.
#pragma once

#include <QString>

#include <nlohmann/json.hpp>

#include <functional>

#include "lessons/lesson.h"
#include "session/session_families.h"
#include "session/session_state.h"

namespace poslab::ui {

// What a lesson step sets: the session's parts (its state), and on the training tab the view a
// step names (an index into core's lessonTrainingViews()) and Play.
struct LessonTargets {
  SessionParts session;
  std::function<void(int)> showTrainingView;
  std::function<void()> play;
};

using poslab::lessonStateUpTo;  // core's lessons/lesson.h
// The last step at or before `index` whose state has a training setup; -1 when none has.
int lessonTrainingStep(const poslab::Lesson& lesson, size_t index);

// The TorchScript modules the lesson's steps name (familyFileNeeds of each step's state; fields
// named "steps[K].state.explorer.family", K from 0), once each, the first step's first. The player
// loads them all, through the window's gate, before it checks and shows any step. Runs no module.
// None falls back on a trained model's module: a lesson holds no trained models.
std::vector<FamilyFileNeed> lessonFamilyNeeds(const poslab::Lesson& lesson);

// Empty when the state of every step (merged up to it) passes core's check without a window
// (checkWindowState: the fields and their types, built-in families' ranges, the views' choices,
// and no trained models: a lesson holds none), else the first problem as checkLessonStep words
// it. Loads no module and reads no file, so the player asks it before it loads the modules the
// steps name: a lesson that names trained models is refused before any of them is read.
QString lessonStatesProblem(const poslab::Lesson& lesson, const QString& source);

// Empty when step `index` can be shown in `window`, else the problem:
// "STEPSOURCE, state: field 'explorer.values.gamma' = 7 is outside [0, 1] ...".
QString checkLessonStep(const LessonTargets& window, const poslab::Lesson& lesson, size_t index,
                        const QString& stepSource);

// Shows step `index`: its merged state (the training setup only when withTraining: setting it
// drops the tab's runs), then the training view it names, then Play when it trains. False, with
// *error as checkLessonStep says and the window unchanged, when the state is refused.
bool applyLessonStep(const LessonTargets& window, const poslab::Lesson& lesson, size_t index,
                     bool withTraining, const QString& stepSource, QString* error);

}  // namespace poslab::ui
