// The training form's "start" box: every parameter of each checked family with the value its run
// starts from, and the pins. A value the setup sets (family_params, from a preset, a session,
// Train from Here or typed here) is shown as set; every other one shows what core fills in
// (bridge familyStartValues: the family's trained start, L = the training length) and becomes set
// when edited. head_dim and heads come from the model and are shown, not edited. The pins are the
// ones the checked families declare (bridge familyPins); one list for every family, as
// config.model.pinned is: each run holds the ones its family learns (core's planExperiment). A
// start the family's learned form cannot hold (an eta past its cap) is named under the family's
// rows as core's check words it, and Play refuses it (runSpecsFromForm).
// Values in and out as FamilyStart (training_setup.h).
#pragma once

#include <QWidget>

#include <map>
#include <string>
#include <vector>

#include "training/training_setup.h"

class QCheckBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;

namespace poslab::ui {

class FamilyStartForm : public QWidget {
  Q_OBJECT
 public:
  explicit FamilyStartForm(QWidget* parent = nullptr);

  FamilyStart start() const { return start_; }
  void setStart(const FamilyStart& start);
  // The checked families (their rows are shown) and the model and length core fills in from.
  void setFamilies(const std::vector<std::string>& families);
  void setModel(long long dModel, long long heads, long long trainLength);
  // The box of `family`'s parameter `name` (tests; null when not shown).
  QDoubleSpinBox* valueBox(const std::string& family, const std::string& name) const;
  QCheckBox* pinBox(const std::string& pin) const;
  // Why `family` cannot start from the values shown with the pins checked (core's start check,
  // bridge familyStartProblem: an eta past its learned cap), shown under its rows; empty: it can.
  QString problem(const std::string& family) const;

 private:
  // `family` was loaded (again) from its file: when shown, its rows are built from its metadata
  // now, and values set for parameters it no longer has are dropped.
  void familyReloaded(const std::string& family);
  void rebuild();        // rows for the shown families and their pins
  void refreshValues();  // the boxes' values from start_ and core's start values
  bool isSet(const std::string& family, const std::string& name) const;

  FamilyStart start_;
  std::vector<std::string> families_;
  long long dModel_ = 64, heads_ = 4, trainLength_ = 64;
  bool filling_ = false;  // the boxes are being set from start_: no edits recorded
  QFormLayout* rows_ = nullptr;
  std::map<std::pair<std::string, std::string>, QDoubleSpinBox*> boxes_;
  std::map<std::pair<std::string, std::string>, QLabel*> modelValues_;
  std::map<std::string, QCheckBox*> pins_;
  std::map<std::string, QLabel*> problems_;  // family -> its start problem (hidden when none)
};

}  // namespace poslab::ui
