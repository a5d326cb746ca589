// The family selector and one control row per parameter of the chosen family, built from its
// ParamSpec list: a slider plus a spin box (log-scaled slider for wide positive ranges), or a
// plain spin box for integers. Tooltips carry the spec's description.
#pragma once

#include <QWidget>

#include <map>
#include <string>
#include <vector>

#include "bridge/catalog.h"

class QComboBox;
class QDoubleSpinBox;
class QGridLayout;
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

 Q_SIGNALS:
  void familyChanged();
  void valuesChanged();
  // A slider was pressed / released (for undo: one command per drag).
  void dragStarted();
  void dragFinished();

 private:
  // One parameter's controls; slider is null for integers.
  struct Row {
    ParamSpec spec;
    QSlider* slider = nullptr;
    QDoubleSpinBox* real = nullptr;
    QSpinBox* integer = nullptr;
    bool logSlider = false;
    double logLow = 0;  // smallest value the log slider reaches above its zero end
    // The value itself, kept exactly: the spin box rounds to its decimals, and a default such as
    // omega = 10000^(-6/16) must reach core unrounded (and not count as an override).
    double value = 0;
  };

  void rebuildRows();
  void addRow(const ParamSpec& spec);
  int sliderPosition(const Row& row, double value) const;
  double sliderValue(const Row& row, int position) const;

  QComboBox* family_ = nullptr;
  QGridLayout* grid_ = nullptr;
  QWidget* rowsHost_ = nullptr;
  std::vector<Row> rows_;
};

}  // namespace poslab::ui
