// The family selector (the built-in families, then those loaded from files this session) and one
// control row per parameter of the chosen family, built from its
// ParamSpec list: a slider plus a spin box (log-scaled slider for wide positive ranges), a plain
// spin box for integers, a check box for on/off switches (pin ω). Rows are labelled with the
// parameter's symbol (γ, ω, η, g_FJ); the tooltip gives its name, meaning and range. A parameter
// that has no effect under the current values (ParamSpec::noEffectWhen) is disabled, and the
// reason is shown under it.
#pragma once

#include <QWidget>

#include <map>
#include <string>
#include <vector>

#include "bridge/catalog.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGridLayout;
class QLabel;
class QSlider;
class QSpinBox;

namespace poslab::ui {

class ParameterPanel : public QWidget {
  Q_OBJECT
 public:
  static constexpr const char* kDefaultFamily = "jordan-exact";  // shown when the app starts

  explicit ParameterPanel(QWidget* parent = nullptr);

  std::string familyId() const;
  // Every parameter's current value, and only those that differ from the spec's default.
  std::map<std::string, double> values() const;
  std::map<std::string, double> overrides() const;

  // False for an unknown id or name (nothing changes). Values outside the spin box's range are
  // clamped by it, as typing would be.
  bool setFamily(const std::string& id);
  bool setValue(const std::string& name, double value);
  // True while the user holds a slider down (a drag: its changes form one undo step).
  bool dragging() const;
  // Why `name` has no effect now (its control is disabled), or empty when it has one.
  QString noEffectReason(const std::string& name) const;

 Q_SIGNALS:
  void familyChanged();
  void valuesChanged();
  // A slider was pressed (for undo: one command per drag).
  void dragStarted();

 private:
  // One parameter's controls; slider is null for integers.
  struct Row {
    ParamSpec spec;
    QSlider* slider = nullptr;
    QDoubleSpinBox* real = nullptr;
    QSpinBox* integer = nullptr;
    QCheckBox* toggle = nullptr;  // on/off switches (ParamSpec::isSwitch)
    QLabel* label = nullptr;
    QLabel* reason = nullptr;  // shown while the parameter has no effect
    bool logSlider = false;
    double logLow = 0;  // smallest value the log slider reaches above its zero end
    // The value itself, kept exactly: the spin box rounds to its decimals, and a default such as
    // omega = 10000^(-6/16) must reach core unrounded (and not count as an override).
    double value = 0;
  };

  void rebuildRows();
  // A row labelled with `symbolMarkup` (the formula markup of the parameter's symbol).
  void addRow(const ParamSpec& spec, const std::string& symbolMarkup);
  // A family loaded from a file (bridge/loaded_families.h) joins the list; loaded again, it is
  // rebuilt where it is shown.
  void addLoadedFamily(const std::string& id);
  // Enables or disables every row by ParamSpec::noEffectWhen under the current values.
  void updateEffects();
  void valueEdited();  // a control changed a value: effects, then valuesChanged
  int sliderPosition(const Row& row, double value) const;
  double sliderValue(const Row& row, int position) const;

  QComboBox* family_ = nullptr;
  QGridLayout* grid_ = nullptr;
  QWidget* rowsHost_ = nullptr;
  std::vector<Row> rows_;
};

}  // namespace poslab::ui
