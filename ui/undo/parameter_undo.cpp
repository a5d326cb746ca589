#include "undo/parameter_undo.h"

#include <QUndoCommand>
#include <QUndoStack>

#include "explorer/parameter_panel.h"

namespace poslab::ui {

namespace {
constexpr int kParameterCommandId = 0x504c;  // any fixed id: only parameter commands merge

QString formatValue(double v) {
  return QString::number(v, 'g', 6);
}

// One change of the panel's state: from `before` to `after`. A change of one value during a
// slider drag carries the drag's serial number and absorbs the drag's later changes.
class ParameterCommand : public QUndoCommand {
 public:
  ParameterCommand(ParameterUndo* owner, ParameterState before, ParameterState after,
                   std::string name, int drag)
      : owner_(owner),
        before_(std::move(before)),
        after_(std::move(after)),
        name_(std::move(name)),
        drag_(drag) {
    updateText();
  }

  int id() const override { return kParameterCommandId; }

  bool mergeWith(const QUndoCommand* other) override {
    const auto* o = static_cast<const ParameterCommand*>(other);
    if (drag_ == 0 || o->drag_ != drag_ || o->name_ != name_ || o->before_.family != after_.family)
      return false;
    after_ = o->after_;
    setObsolete(after_ == before_);  // dragged back to where it started: nothing to undo
    updateText();
    return true;
  }

  void redo() override {
    if (first_) {  // push() calls redo(); the panel already shows the change
      first_ = false;
      return;
    }
    owner_->apply(after_);
  }
  void undo() override { owner_->apply(before_); }

 private:
  void updateText() {
    if (before_.family != after_.family) {
      setText(
          QObject::tr("family %1 → %2")
              .arg(QString::fromStdString(before_.family), QString::fromStdString(after_.family)));
    } else if (!name_.empty()) {
      auto b = before_.values.find(name_), a = after_.values.find(name_);
      setText(QObject::tr("%1 %2 → %3")
                  .arg(QString::fromStdString(name_),
                       b == before_.values.end() ? "?" : formatValue(b->second),
                       a == after_.values.end() ? "?" : formatValue(a->second)));
    } else {
      setText(QObject::tr("parameters"));
    }
  }

  ParameterUndo* owner_;
  ParameterState before_, after_;
  std::string name_;  // the one value that changed; empty for a family or multi-value change
  int drag_;          // 0: not part of a drag
  bool first_ = true;
};
}  // namespace

ParameterUndo::ParameterUndo(ParameterPanel* panel, QObject* parent)
    : QObject(parent), panel_(panel), stack_(new QUndoStack(this)) {
  stack_->setObjectName("parameterUndoStack");
  last_ = current();
  connect(panel_, &ParameterPanel::valuesChanged, this, &ParameterUndo::record);
  connect(panel_, &ParameterPanel::familyChanged, this, &ParameterUndo::record);
  connect(panel_, &ParameterPanel::dragStarted, this, [this] { ++drag_; });
}

ParameterState ParameterUndo::current() const {
  return {panel_->familyId(), panel_->values()};
}

void ParameterUndo::apply(const ParameterState& state) {
  applying_ = true;
  if (state.family != panel_->familyId()) panel_->setFamily(state.family);
  for (const auto& [name, value] : state.values) {
    auto now = panel_->values();
    auto it = now.find(name);
    if (it != now.end() && it->second != value) panel_->setValue(name, value);
  }
  applying_ = false;
  last_ = current();
}

void ParameterUndo::record() {
  if (applying_) return;
  ParameterState now = current();
  if (now == last_) return;
  std::string changed;
  if (now.family == last_.family) {
    int count = 0;
    for (const auto& [name, value] : now.values) {
      auto it = last_.values.find(name);
      if (it == last_.values.end() || it->second != value) {
        changed = name;
        ++count;
      }
    }
    if (count != 1) changed.clear();
  }
  const int drag = !changed.empty() && panel_->dragging() ? drag_ : 0;
  ParameterState before = std::move(last_);
  last_ = now;
  stack_->push(new ParameterCommand(this, std::move(before), std::move(now), changed, drag));
}

}  // namespace poslab::ui
