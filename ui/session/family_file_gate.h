// The one way the window loads the TorchScript modules a document needs before it reads the
// document (docs/ENCODINGS.md): File > Load Encoding..., opening a session (its family files, or
// the modules its trained models keep), pasting a state string, loading a preset. Loading a
// module runs its code: the first load of a window says so, once (object name
// "encodingCodeNotice", opened without blocking), and goes on only when the user agrees. The
// modules are read and checked (core's probe) on their own thread; the window stays as it is
// until every one has passed; then they join the family lists and the caller reads the document,
// which finds them loaded, so that no module runs on the UI thread. A module that fails gives one
// line naming the document, the field, the file and what was wrong.
#pragma once

#include <QObject>
#include <QString>

#include <functional>
#include <vector>

#include "session/session_families.h"

class QWidget;

namespace poslab::ui {

class FamilyFileGate : public QObject {
  Q_OBJECT
 public:
  explicit FamilyFileGate(QWidget* window, QObject* parent = nullptr);

  // The notice that loading runs code, when the user has not agreed yet in this window; `go`
  // runs once they agree (at once when they did before), `declined` when they cancel.
  // `goLabel` names the agreeing button.
  void askToRunCode(const QString& goLabel, std::function<void()> go,
                    std::function<void()> declined = {});
  // Loads those of `needs` that are not loaded as named, after the notice, off the UI thread;
  // then adds them to the family lists and runs `then`. `source` names the document in an error
  // ("session file X", "the state string"). On a failed load `failed` gets the one line; when
  // the user declines the notice it gets an empty one. With nothing to load, `then` runs at once.
  void load(const std::vector<FamilyFileNeed>& needs, const QString& source,
            std::function<void()> then, std::function<void(const QString&)> failed);

  // True once the user has agreed to run loaded code in this window.
  bool agreed() const { return agreed_; }
  void setAgreed() { agreed_ = true; }
  // True while modules load: another load() is refused with a note in the status bar.
  bool busy() const { return busy_; }

 Q_SIGNALS:
  // After each load(), once `then` or `failed` has run: whether the modules loaded, else the
  // one-line error (empty: the user declined the notice).
  void settled(bool loaded, const QString& error);

 private:
  void loadOffThread(const std::vector<FamilyFileNeed>& needs, const QString& source,
                     std::function<void()> then, std::function<void(const QString&)> failed);

  QWidget* window_;
  bool agreed_ = false;
  bool busy_ = false;
};

}  // namespace poslab::ui
