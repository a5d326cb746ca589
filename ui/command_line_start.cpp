#include "command_line_start.h"

#include <QDockWidget>
#include <QFileInfo>

#include <exception>
#include <map>
#include <string>

#include "app_shell.h"
#include "bridge/catalog.h"
#include "error_report.h"
#include "explorer/parameter_panel.h"
#include "lessons/lesson.h"
#include "lessons/lesson_player.h"
#include "lessons/lesson_step_state.h"
#include "main_window.h"
#include "menus/file_menu.h"
#include "menus/presets_menu.h"
#include "presentation/presentation_mode.h"
#include "session/family_file_gate.h"
#include "session/session_families.h"
#include "session/session_io.h"
#include "training/training_panel.h"

namespace poslab::ui {

namespace {
constexpr int kNoteMs = 15000;  // the preset's note stays this long, as from the Presets menu
constexpr const char* kFilePrefix = "file:";

// True when the session at `path` lists trained models (their checkpoints are read off the UI
// thread). Its file families are loaded by then, so it reads; a file that does not read has none
// (startNow then refuses it, naming the problem).
bool sessionHasTrainedModels(const QString& path) {
  SessionState state;
  QString ignored;
  return loadSessionFile(path, &state, &ignored) && !state.checkpoints.empty();
}

// A lesson's modules, or none when it does not read (openFile then names the problem).
std::vector<FamilyFileNeed> lessonNeeds(const QString& path) {
  try {
    return lessonFamilyNeeds(poslab::readLessonFile(path.toStdString()));
  } catch (const std::exception&) {
    return {};
  }
}
}  // namespace

CommandLineStart::CommandLineStart(AppShell& shell, CommandLineRequest request, QObject* parent)
    : QObject(parent), shell_(shell), request_(std::move(request)) {
  if (request_.family.startsWith(kFilePrefix))  // the id Load Encoding gives the same file
    request_.family = kFilePrefix + QFileInfo(request_.family.mid(5)).absoluteFilePath();
  addSteps();
}

void CommandLineStart::addSteps() {
  MainWindow* w = &shell_.window();
  const CommandLineRequest& r = request_;
  if (!r.session.isEmpty()) {
    const QString path = r.session;
    steps_.push_back(
        {[path] {
           return !notLoaded(sessionFileNeeds(path)).empty() || sessionHasTrainedModels(path);
         },
         [this, path](QString* error) { return shell_.sessions()->loadFile(path, error); },
         [this, path](Outcome done) { shell_.sessions()->openInBackground(path, done); }});
  }
  if (!r.preset.isEmpty()) {
    const QString preset = r.preset;
    steps_.push_back(
        {[preset] { return !notLoaded(presetFamilyNeeds(preset)).empty(); },
         [this, preset](QString* error) {
           playPreset_ = shell_.loadPreset(preset, error, &presetNote_);
           return playPreset_;
         },
         [this, preset](Outcome done) { shell_.loadPresetInBackground(preset, done); }});
  }
  if (!r.family.isEmpty() || !r.sets.empty()) {
    const std::string id = r.family.toStdString();
    const std::vector<FamilyFileNeed> needs{{id, "--family", {}, {}}};
    auto apply = [this, w, id](QString* error) {
      ParameterPanel* panel = w->parameters();
      const std::string family = id.empty() ? panel->familyId() : id;
      const FamilyDescription* described = findFamily(family);
      if (!described) {
        *error = tr("unknown family '%1'; see `poslab-cli families`").arg(request_.family);
        return false;
      }
      // The values it will show (the panel's own, or a new family's defaults) with the sets over
      // them, checked by core as a whole before anything changes: a spin box never silently
      // clamps a bad value, and a refused set leaves the window as it was.
      std::map<std::string, double> values = panel->values();
      if (family != panel->familyId()) {
        values.clear();
        for (const ParamSpec& p : described->params) values[p.name] = p.defaultValue;
      }
      for (const auto& [name, value] : request_.sets) {
        if (!values.count(name.toStdString())) {
          *error = tr("family %1 has no parameter '%2'").arg(QString::fromStdString(family), name);
          return false;
        }
        values[name.toStdString()] = value;
      }
      if (const std::string problem = checkEncoding(family, values); !problem.empty()) {
        *error = QString::fromStdString(problem);
        return false;
      }
      if (!panel->setFamily(family)) {
        *error = tr("unknown family '%1'; see `poslab-cli families`").arg(request_.family);
        return false;
      }
      for (const auto& [name, value] : request_.sets) panel->setValue(name.toStdString(), value);
      return true;
    };
    steps_.push_back(
        {[id, needs] { return id.rfind(kFilePrefix, 0) == 0 && !notLoaded(needs).empty(); }, apply,
         [this, w, needs, apply](Outcome done) {
           shell_.familyGate()->load(
               needs, tr("--family"),
               [w, apply, done] {
                 QString error;
                 const bool ok = apply(&error);
                 if (!ok) showError(w, {tr("Cannot show the family"), error});
                 done(ok, error);
               },
               [w, done](const QString& error) {
                 if (!error.isEmpty())
                   showError(w, {tr("Cannot load the encoding"), error},
                             QStringLiteral("loadEncodingError"));
                 done(false, error);
               });
         }});
  }
  if (r.view) {
    const WindowView view = *r.view;
    steps_.push_back({[] { return false; },
                      [w, view](QString*) {
                        w->showView(view);
                        return true;
                      },
                      {}});
  }
  if (!r.lesson.isEmpty()) {
    const QString lesson = r.lesson;
    const int step = r.lessonStep;
    steps_.push_back({[lesson] { return !notLoaded(lessonNeeds(lesson)).empty(); },
                      [this, w, lesson, step](QString* error) {
                        if (!shell_.lessons()->openFile(lesson, error, step)) return false;
                        w->lessonDock()->show();
                        return true;
                      },
                      [this, w, lesson, step](Outcome done) {
                        shell_.lessons()->openFileInBackground(
                            lesson, step, [w, done](bool ok, const QString& error) {
                              if (ok) w->lessonDock()->show();
                              done(ok, error);
                            });
                      }});
  }
  if (r.presentation)
    steps_.push_back({[] { return false; },
                      [this](QString*) {
                        shell_.presentation()->enter();
                        return true;
                      },
                      {}});
}

bool CommandLineStart::startNow(QString* error) {
  while (next_ < steps_.size() && !steps_[next_].inWindow()) {
    if (!steps_[next_].now(error)) return false;
    ++next_;
  }
  return true;
}

void CommandLineStart::continueInWindow() {
  if (finished_) return;
  if (next_ == steps_.size()) return finish(true, {});
  const Step& step = steps_[next_++];
  if (!step.inWindow()) {
    QString error;
    if (!step.now(&error)) {
      showError(&shell_.window(), {tr("Cannot show what the command line asked for"), error});
      return finish(false, error);
    }
    return continueInWindow();
  }
  step.later([this](bool ok, const QString& error) {
    if (!ok) return finish(false, error);  // the step has shown its problem in the window
    continueInWindow();
  });
}

void CommandLineStart::finish(bool ok, const QString& error) {
  finished_ = true;
  if (playPreset_) {
    shell_.window().trainingPanel()->play();
    showStatus(&shell_.window(), presetNote_, kNoteMs);
  }
  Q_EMIT finished(ok, error);
}

}  // namespace poslab::ui
