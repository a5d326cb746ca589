// One error type for the UI and one way of showing errors and notes, used by every menu, dialog
// and panel. The policy:
// - A command the user gave that failed (open or save a session, load a preset, export an image,
//   data or a report): showError. Its first line goes to the window's status bar and the whole
//   message into a warning box titled with what failed, opened without blocking (open(), never
//   exec(): a nested event loop would stall the training snapshots and block the tests).
// - A note (something done, what of a preset runs): showStatus, in the status bar.
// - A view that cannot show its result says so in its own place and in the status bar: the
//   explorer's error label, the training tab's status line (its refusals and a diverged run must
//   not stop training with a dialog).
// Core's exceptions (poslab::Error and InvalidArgument, whose text names the file or key and the
// fix) become a UiError once, through uiErrorFrom.
#pragma once

#include <QString>

#include <exception>

class QWidget;

namespace poslab::ui {

inline constexpr int kStatusMs = 8000;  // how long a message stays in the status bar

struct UiError {
  QString where;    // what failed, the box's title: "Cannot open session", "Export image"
  QString message;  // why, naming the file or field; may span lines (the first is the summary)
  bool isEmpty() const { return message.isEmpty(); }
};

// The exception's text (core's message names the source and the key path) under `where`.
UiError uiErrorFrom(const QString& where, const std::exception& e);

// The status bar of `anchor`'s window (when it is a main window) shows the error's first line;
// a warning box (object name `boxName`, deleted when closed) shows all of it.
void showError(QWidget* anchor, const UiError& error, const QString& boxName = "uiError");
// The status bar of `anchor`'s window (when it is a main window) shows `text` for `ms`.
void showStatus(QWidget* anchor, const QString& text, int ms = kStatusMs);

}  // namespace poslab::ui
