#include "lessons/lesson_step_state.h"

#include <QDir>

#include <algorithm>
#include <exception>
#include <string>

#include "lessons/lesson.h"
#include "lessons/window_state_check.h"

namespace poslab::ui {

using nlohmann::json;

namespace {

// The merged state over the window's own, read as a session. False with *problem.
bool mergedSession(const LessonTargets& w, const poslab::Lesson& lesson, size_t index,
                   SessionState* out, QString* problem) {
  const json state = lessonStateUpTo(lesson, index);
  // The checks `poslab-cli lesson` makes (core's, no window): the same lessons are refused with
  // the same words; validateSession then checks the merged state against this window.
  try {
    checkWindowState(state, "");
  } catch (const std::exception& e) {
    *problem = QString::fromUtf8(e.what());
    return false;
  }
  json merged = sessionToJson(captureSession(w.session));
  for (const auto& [key, value] : state.items()) {
    if (key == "views" && value.is_object())
      for (const auto& [view, settings] : value.items()) merged["views"][view] = settings;
    else
      merged[key] = value;
  }
  if (!sessionFromJson(merged, *out, problem)) return false;
  const poslab::LessonStep& step = lesson.steps[index];
  if (!step.trainingView.empty() && !(step.state.is_object() && step.state.contains("tab")))
    out->tab = "training";
  return true;
}

}  // namespace

std::vector<FamilyFileNeed> lessonFamilyNeeds(const poslab::Lesson& lesson) {
  std::vector<FamilyFileNeed> out;
  for (size_t k = 0; k < lesson.steps.size(); ++k)
    for (FamilyFileNeed need : familyFileNeeds(lesson.steps[k].state, QDir())) {
      if (std::any_of(out.begin(), out.end(),
                      [&](const FamilyFileNeed& n) { return n.family == need.family; }))
        continue;
      need.field = "steps[" + std::to_string(k) + "].state" +
                   (need.field.empty() ? std::string() : "." + need.field);
      need.checkpoint.clear();  // a lesson's "trained_models" is refused, never read
      out.push_back(need);
    }
  return out;
}

QString lessonStatesProblem(const poslab::Lesson& lesson, const QString& source) {
  for (size_t k = 0; k < lesson.steps.size(); ++k) {
    try {
      checkWindowState(lessonStateUpTo(lesson, k), "");
    } catch (const std::exception& e) {
      return QObject::tr("%1, state: %2")
          .arg(QString::fromStdString(poslab::lessonStepSource(source.toStdString(), k)),
               QString::fromUtf8(e.what()));
    }
  }
  return {};
}

int lessonTrainingStep(const poslab::Lesson& lesson, size_t index) {
  for (size_t k = std::min(index + 1, lesson.steps.size()); k-- > 0;)
    if (lesson.steps[k].state.is_object() && lesson.steps[k].state.contains("training"))
      return static_cast<int>(k);
  return -1;
}

QString checkLessonStep(const LessonTargets& w, const poslab::Lesson& lesson, size_t index,
                        const QString& stepSource) {
  SessionState state;
  QString problem;
  if (mergedSession(w, lesson, index, &state, &problem)) {
    const bool ownTraining =
        lesson.steps[index].state.is_object() && lesson.steps[index].state.contains("training");
    problem = validateSession(w.session, state, ownTraining);
  }
  return problem.isEmpty() ? QString() : QObject::tr("%1, state: %2").arg(stepSource, problem);
}

bool applyLessonStep(const LessonTargets& w, const poslab::Lesson& lesson, size_t index,
                     bool withTraining, const QString& stepSource, QString* error) {
  SessionState state;
  QString problem;
  if (!mergedSession(w, lesson, index, &state, &problem) ||
      !applySession(w.session, state, &problem, withTraining)) {
    *error = QObject::tr("%1, state: %2").arg(stepSource, problem);
    return false;
  }
  const poslab::LessonStep& step = lesson.steps[index];
  if (!step.trainingView.empty()) {
    const auto& views = lessonTrainingViews();
    const auto at = std::find(views.begin(), views.end(), step.trainingView) - views.begin();
    w.showTrainingView(static_cast<int>(at));
  }
  if (step.train) w.play();
  return true;
}

}  // namespace poslab::ui
