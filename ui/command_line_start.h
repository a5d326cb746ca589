// What `poslab` is asked to show on its command line, applied in this order: --session FILE,
// --preset NAME, --family ID with --set NAME=VALUE, --view, --lesson NAME at --lesson-step,
// --presentation; then a preset's training plays. A step that loads no TorchScript module and no
// trained model applies at once (startNow), before the window is shown, so a bad session or preset
// is refused with exit 2 and no window. From the first step that does on, the steps go through the
// window (continueInWindow), as File > Open Session, the Presets menu, Open Lesson and Load
// Encoding do: the notice that loading runs code, once per window; the modules (and a session's
// checkpoints) read and checked off the UI thread; a failure one line in the window (the status
// bar and an error box) with the window as it was, and the steps after it not applied.
// `poslab --screenshot` (screenshot.h) applies its steps the same way, through continueInWindow,
// with the notice already agreed to (no one is there to answer it).
#pragma once

#include <QObject>
#include <QString>

#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "window_view.h"

namespace poslab::ui {

class AppShell;

struct CommandLineRequest {
  QString session;  // a .poslab file; empty: none
  QString preset;   // a preset name or file; empty: none
  QString family;   // a family id (file:PATH.pt too); empty: the window's
  std::vector<std::pair<QString, double>> sets;  // the explorer's values, after the family
  std::optional<WindowView> view;                // the tab to show; none: the session's or preset's
  QString lesson;                                // a lesson file; empty: none
  int lessonStep = 0;                            // 0-based
  bool presentation = false;
};

class CommandLineStart : public QObject {
  Q_OBJECT
 public:
  CommandLineStart(AppShell& shell, CommandLineRequest request, QObject* parent = nullptr);

  // Applies the steps up to the first that loads a module or a trained model. False with *error
  // (the one line to print before exiting with 2) when one of them is refused.
  bool startNow(QString* error);
  // The remaining steps, each through the window's gate when it loads modules; the window should
  // be shown. `finished` comes once, after the last step or the first that failed.
  void continueInWindow();
  bool isFinished() const { return finished_; }

 Q_SIGNALS:
  // ok: every step applied; else `error` is the failed step's one line (empty: the user declined
  // the notice that loading runs code).
  void finished(bool ok, const QString& error);

 private:
  using Outcome = std::function<void(bool ok, const QString& error)>;
  struct Step {
    std::function<bool()> inWindow;      // loads a module or a trained model
    std::function<bool(QString*)> now;   // applies it on this thread
    std::function<void(Outcome)> later;  // applies it through the window's gate
  };
  void addSteps();
  void finish(bool ok, const QString& error);

  AppShell& shell_;
  CommandLineRequest request_;
  std::vector<Step> steps_;
  size_t next_ = 0;
  bool playPreset_ = false;  // the preset loaded in startNow: it plays once the window is shown
  QString presetNote_;
  bool finished_ = false;
};

}  // namespace poslab::ui
