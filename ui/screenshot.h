// Headless screenshots: build the window and apply a session, preset, family, parameters, view,
// lesson and presentation mode as `poslab` applies its command line (command_line_start.h: every
// TorchScript module and trained model read and checked off the UI thread through the window's
// gate, whose notice counts as agreed: the command line named the files), wait until the view's
// computation has finished (for training: until the run has: a preset's, a session's or a
// lesson's setup as it is, else a short compare run), grab the window and write a PNG. Used by
// `poslab --screenshot` and its tests.
#pragma once

#include <QString>

#include <utility>
#include <vector>

#include "window_view.h"

namespace poslab::ui {

struct ScreenshotRequest {
  QString file;  // PNG path
  WindowView view = WindowView::Kernel;
  QString family;                                // empty: the window's default
  std::vector<std::pair<QString, double>> sets;  // NAME=VALUE overrides, in order
  QString session;           // a .poslab file applied first (family and sets then apply on top)
  bool sessionView = false;  // with a session: show its tab instead of `view`
  QString preset;      // a preset name or file: run its first seed to the end, shot of training
  QString lesson;      // a lesson name or file, opened at lessonStep (its state applies last)
  int lessonStep = 0;  // 0-based
  bool presentation = false;       // presentation mode (at the window's size, not full screen)
  int width = 1400, height = 860;  // window size in pixels
  int timeoutMs = 300000;          // give up (error) after this long
};

// Returns an empty string on success, else what went wrong (unknown family or parameter, a
// value core rejects, a computation error, a timeout, a file that cannot be written).
QString takeScreenshot(const ScreenshotRequest& request);

// "NAME=VALUE" -> pair; false when malformed.
bool parseSet(const QString& text, std::pair<QString, double>& out);

}  // namespace poslab::ui
