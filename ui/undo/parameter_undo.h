// Undo and redo of the explorer's parameter changes. Watches the parameter panel and pushes one
// QUndoCommand per committed change: a value typed or stepped in a spin box, a whole slider drag
// (its many intermediate values merge into one command), or a family change (whose undo restores
// the previous family and every one of its values). Applying an undo or redo sets the panel
// without recording it again.
#pragma once

#include <QObject>
#include <QString>

#include <map>
#include <string>

class QUndoStack;

namespace poslab::ui {

class ParameterPanel;

// The panel's whole state: what one undo step restores.
struct ParameterState {
  std::string family;
  std::map<std::string, double> values;
  bool operator==(const ParameterState&) const = default;
};

class ParameterUndo : public QObject {
  Q_OBJECT
 public:
  ParameterUndo(ParameterPanel* panel, QObject* parent = nullptr);

  QUndoStack* stack() const { return stack_; }
  ParameterState current() const;
  // Sets the panel to `state` without recording (used by the commands).
  void apply(const ParameterState& state);

 private:
  void record();

  ParameterPanel* panel_;
  QUndoStack* stack_;
  ParameterState last_;  // the state after the newest recorded (or applied) change
  bool applying_ = false;
  int drag_ = 0;  // serial number of the newest slider drag; changes within one merge
};

}  // namespace poslab::ui
