#include "lessons/lesson_player.h"

#include <exception>

#include <QPointer>

#include "error_report.h"
#include "lessons/lesson.h"
#include "lessons/lesson_step_state.h"
#include "session/family_file_gate.h"

namespace poslab::ui {

namespace {
QString stepSource(const QString& source, size_t index) {
  return QString::fromStdString(poslab::lessonStepSource(source.toStdString(), index));
}
}  // namespace

LessonPlayer::LessonPlayer(const LessonTargets& targets, QWidget* window, QObject* parent)
    : QObject(parent), targets_(targets), window_(window) {
  setObjectName("lessonPlayer");
}

LessonPlayer::~LessonPlayer() = default;

int LessonPlayer::stepCount() const {
  return lesson_ ? static_cast<int>(lesson_->steps.size()) : 0;
}

bool LessonPlayer::openFile(const QString& path, QString* error, int step) {
  poslab::Lesson lesson;
  try {
    lesson = poslab::readLessonFile(path.toStdString());
  } catch (const std::exception& e) {
    *error = QString::fromUtf8(e.what());
    return false;
  }
  return open(lesson, QString::fromStdString(poslab::lessonSource(path.toStdString())), error, step,
              path);
}

void LessonPlayer::openFileInBackground(const QString& path, int step, Outcome done) {
  auto fail = [this, done](const QString& error) {
    if (!error.isEmpty())
      showError(window_, {tr("Cannot open the lesson"), error}, QStringLiteral("lessonError"));
    if (done) done(false, error.section('\n', 0, 0));
  };
  poslab::Lesson lesson;
  try {
    lesson = poslab::readLessonFile(path.toStdString());
  } catch (const std::exception& e) {
    return fail(QString::fromUtf8(e.what()));
  }
  const QString source = QString::fromStdString(poslab::lessonSource(path.toStdString()));
  // Refused before any module loads (a lesson naming trained models: before any is read).
  if (const QString problem = lessonStatesProblem(lesson, source); !problem.isEmpty())
    return fail(problem);
  auto openNow = [this, lesson, source, path, step, fail, done] {
    QString error;
    if (!open(lesson, source, &error, step, path)) return fail(error);
    if (done) done(true, {});
  };
  if (!gate_) return openNow();
  QPointer<LessonPlayer> self(this);
  gate_->load(
      lessonFamilyNeeds(lesson), source,
      [self, openNow] {
        if (self) openNow();
      },
      [self, fail](const QString& error) {
        if (!self) return;
        if (error.isEmpty())
          showStatus(self->window_, tr("The lesson was not opened: its encodings were not loaded"));
        fail(error);
      });
}

bool LessonPlayer::open(const poslab::Lesson& lesson, const QString& source, QString* error,
                        int step, const QString& file) {
  if (step < 0 || step >= static_cast<int>(lesson.steps.size())) {
    *error = tr("%1 has %2 steps; there is no step %3")
                 .arg(source)
                 .arg(lesson.steps.size())
                 .arg(step + 1);
    return false;
  }
  // What core checks without a window, before anything is loaded or read.
  if (const QString problem = lessonStatesProblem(lesson, source); !problem.isEmpty()) {
    *error = problem;
    return false;
  }
  // The modules its steps name, before any step is checked (openFileInBackground loaded them off
  // the UI thread already; a caller without a gate loads them here).
  if (const QString problem = loadFamilyNeeds(lessonFamilyNeeds(lesson)); !problem.isEmpty()) {
    *error = tr("%1: %2").arg(source, problem);
    return false;
  }
  // Every step is checked before the first is shown: a teacher's file with a typo in step 4 is
  // refused when it is opened, naming step 4 and the field.
  for (size_t k = 0; k < lesson.steps.size(); ++k) {
    const QString problem = checkLessonStep(targets_, lesson, k, stepSource(source, k));
    if (!problem.isEmpty()) {
      *error = problem;
      return false;
    }
  }
  auto previous = std::move(lesson_);
  const QString previousSource = source_, previousFile = file_;
  const int previousTraining = trainingStep_;
  lesson_ = std::make_unique<poslab::Lesson>(lesson);
  source_ = source;
  file_ = file;
  trainingStep_ = -1;  // a new lesson sets its own training setup
  if (!show(step, error)) {
    lesson_ = std::move(previous);
    source_ = previousSource;
    file_ = previousFile;
    trainingStep_ = previousTraining;
    return false;
  }
  return true;
}

bool LessonPlayer::goTo(int index, QString* error) {
  if (!lesson_) {
    *error = tr("no lesson is open");
    return false;
  }
  if (index < 0 || index >= stepCount()) {
    *error =
        tr("%1 has %2 steps; there is no step %3").arg(source_).arg(stepCount()).arg(index + 1);
    return false;
  }
  return show(index, error);
}

bool LessonPlayer::show(int index, QString* error) {
  const auto k = static_cast<size_t>(index);
  // The training setup is set (dropping the tab's runs) when the step gives its own, or when the
  // tab holds another step's setup than the one this step builds on; otherwise the runs an
  // earlier step trained stay, to be looked at.
  const int training = lessonTrainingStep(*lesson_, k);
  const bool ownTraining = training == index;
  const bool withTraining = training >= 0 && (ownTraining || training != trainingStep_);
  if (!applyLessonStep(targets_, *lesson_, k, withTraining, stepSource(source_, k), error))
    return false;
  if (withTraining) trainingStep_ = training;
  index_ = index;
  Q_EMIT stepShown(index_);
  return true;
}

bool LessonPlayer::step(int delta) {
  if (!lesson_) return false;
  const int target = index_ + delta;
  if (target < 0 || target >= stepCount()) return false;
  QString error;
  if (goTo(target, &error)) return true;
  showError(window_, {tr("Cannot show the lesson step"), error}, QStringLiteral("lessonError"));
  return false;
}

bool LessonPlayer::next() {
  return step(+1);
}

bool LessonPlayer::back() {
  return step(-1);
}

void LessonPlayer::close() {
  if (!lesson_) return;
  lesson_.reset();
  source_.clear();
  file_.clear();
  index_ = 0;
  trainingStep_ = -1;
  Q_EMIT closed();
}

}  // namespace poslab::ui
