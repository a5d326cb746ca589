#include "explorer/parameter_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QValidator>

#include <algorithm>
#include <cmath>

#include "bridge/loaded_families.h"
#include "family_names.h"
#include "math/formula_markup.h"
#include "math/prose_markup.h"

namespace poslab::ui {

namespace {
constexpr int kSliderSteps = 1000;      // slider resolution
constexpr double kLogDecadesBelow = 6;  // a log slider over [0, max] starts at max * 1e-6
constexpr double kWideRatio = 100;      // max/min above this gets a log slider

bool wantsLogSlider(const ParamSpec& s) {
  if (s.max <= 0 || s.min < 0) return false;
  if (s.min == 0) return s.defaultValue > 0 && s.defaultValue < s.max / kWideRatio;
  return s.max / s.min >= kWideRatio;
}

constexpr int kStoredDecimals = 12;  // what the spin box keeps; it displays 6 significant digits

// Shows values as 6 significant digits (1e-04, 0.0316228, 10000) instead of fixed decimals.
class CompactSpinBox : public QDoubleSpinBox {
 public:
  using QDoubleSpinBox::QDoubleSpinBox;
  QString textFromValue(double value) const override { return QString::number(value, 'g', 6); }
  double valueFromText(const QString& text) const override { return text.toDouble(); }
  QValidator::State validate(QString& text, int&) const override {
    bool ok = false;
    text.toDouble(&ok);
    return ok ? QValidator::Acceptable : QValidator::Intermediate;
  }
};

// Why a parameter has no effect, as plain text: the families write the reason as prose with $…$
// formulas ("each head has its own $ω_h$"), shown here in Unicode (ωₕ); "" when it has an effect.
QString reasonText(const ParamSpec& spec, const std::map<std::string, double>& values) {
  return proseToPlainText(QString::fromStdString(poslab::noEffectReason(spec, values)));
}
}  // namespace

ParameterPanel::ParameterPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* label = new QLabel(tr("Family"), this);
  family_ = new QComboBox(this);
  family_->setObjectName("family");
  for (const auto& f : familyCatalog())
    family_->addItem(QString::fromStdString(f.title), QString::fromStdString(f.id));
  for (const std::string& id : loadedFamilies().ids()) addLoadedFamily(id);
  connect(&loadedFamilies(), &LoadedFamilies::familyAdded, this,
          [this](const QString& id) { addLoadedFamily(id.toStdString()); });
  // Start on the family the explorer exists for: exact Jordan-RoPE has gamma, omega and eta, and
  // its kernel shows the coupled d cos(omega d) term (NoPE, first in MATH 1 order, has nothing).
  family_->setCurrentIndex(std::max(0, family_->findData(QString::fromStdString(kDefaultFamily))));
  layout->addWidget(label);
  layout->addWidget(family_);
  rowsHost_ = new QWidget(this);
  grid_ = new QGridLayout(rowsHost_);
  grid_->setContentsMargins(0, 6, 0, 0);
  grid_->setColumnStretch(1, 1);
  layout->addWidget(rowsHost_);
  layout->addStretch(1);
  connect(family_, &QComboBox::currentIndexChanged, this, [this] {
    rebuildRows();
    Q_EMIT familyChanged();
  });
  rebuildRows();
}

std::string ParameterPanel::familyId() const {
  return family_->currentData().toString().toStdString();
}

std::map<std::string, double> ParameterPanel::values() const {
  std::map<std::string, double> out;
  for (const Row& r : rows_) out[r.spec.name] = r.value;
  return out;
}

std::map<std::string, double> ParameterPanel::overrides() const {
  std::map<std::string, double> out;
  for (const Row& r : rows_) {
    if (r.value != r.spec.defaultValue) out[r.spec.name] = r.value;
  }
  return out;
}

bool ParameterPanel::setFamily(const std::string& id) {
  const int index = family_->findData(QString::fromStdString(id));
  if (index < 0) return false;
  family_->setCurrentIndex(index);  // rebuilds and emits when it changes
  return true;
}

bool ParameterPanel::setValue(const std::string& name, double value) {
  for (Row& r : rows_) {
    if (r.spec.name != name) continue;
    if (r.toggle) {
      r.toggle->setChecked(std::lround(value) != 0);  // emits through its handler
      return true;
    }
    if (r.integer) {
      r.integer->setValue(static_cast<int>(std::lround(value)));  // emits through its handler
      return true;
    }
    r.value = std::clamp(value, r.spec.min, r.spec.max);
    {
      const QSignalBlocker blockSpin(r.real), blockSlider(r.slider);
      r.real->setValue(r.value);
      r.slider->setValue(sliderPosition(r, r.value));
    }
    valueEdited();
    return true;
  }
  return false;
}

void ParameterPanel::addLoadedFamily(const std::string& id) {
  const FamilyDescription* f = findFamily(id);
  if (!f) return;
  const QString data = QString::fromStdString(id);
  const QString title = tr("%1 (file)").arg(QString::fromStdString(f->title));
  int index = family_->findData(data);
  if (index < 0) {
    const QSignalBlocker block(family_);  // adding never changes the current family
    family_->addItem(title, data);
    index = family_->count() - 1;
  } else {
    family_->setItemText(index, title);
  }
  family_->setItemData(index, familyToolTip(id), Qt::ToolTipRole);  // path and content hash
  // The family shown was loaded again: its parameters may differ now.
  if (index == family_->currentIndex()) {
    rebuildRows();
    Q_EMIT familyChanged();
  }
}

bool ParameterPanel::dragging() const {
  return std::any_of(rows_.begin(), rows_.end(),
                     [](const Row& r) { return r.slider && r.slider->isSliderDown(); });
}

void ParameterPanel::rebuildRows() {
  while (QLayoutItem* item = grid_->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  rows_.clear();
  const FamilyDescription* f = findFamily(familyId());
  if (!f) return;
  rows_.reserve(f->params.size());
  for (const ParamSpec& spec : f->params) addRow(spec, familyParamSymbol(*f, spec.name));
  updateEffects();
}

QString ParameterPanel::noEffectReason(const std::string& name) const {
  const auto current = values();
  for (const Row& r : rows_)
    if (r.spec.name == name) return reasonText(r.spec, current);
  return {};
}

void ParameterPanel::valueEdited() {
  updateEffects();
  Q_EMIT valuesChanged();
}

void ParameterPanel::updateEffects() {
  const auto current = values();
  for (Row& r : rows_) {
    const QString why = reasonText(r.spec, current);
    const bool active = why.isEmpty();
    for (QWidget* w :
         std::initializer_list<QWidget*>{r.slider, r.real, r.integer, r.toggle, r.label})
      if (w) w->setEnabled(active);
    r.reason->setText(tr("no effect: %1").arg(why));
    r.reason->setVisible(!active);
  }
}

void ParameterPanel::addRow(const ParamSpec& spec, const std::string& symbolMarkup) {
  const int line = grid_->rowCount();
  const QString name = QString::fromStdString(spec.name);
  const QString symbol = formulaToHtml(*parseFormula(QString::fromStdString(symbolMarkup)));
  const QString tip =
      QStringLiteral("<b>%1</b> &nbsp;<code>%2</code><br>%3<br>")
          .arg(symbol, name.toHtmlEscaped(),
               QString::fromStdString(spec.description).toHtmlEscaped()) +
      (spec.isSwitch()
           ? tr("on (1) or off (0), default %1").arg(spec.defaultValue != 0 ? tr("on") : tr("off"))
           : tr("range [%1, %2], default %3")
                 .arg(spec.min, 0, 'g', 6)
                 .arg(spec.max, 0, 'g', 6)
                 .arg(spec.defaultValue, 0, 'g', 6));
  Row row;
  row.spec = spec;
  row.value = spec.defaultValue;
  row.label = new QLabel(symbol, rowsHost_);
  row.label->setObjectName("label_" + name);
  row.label->setTextFormat(Qt::RichText);
  row.label->setToolTip(tip);
  grid_->addWidget(row.label, line, 0);
  // The reason line under the row, shown only while the parameter has no effect.
  row.reason = new QLabel(rowsHost_);
  row.reason->setObjectName("reason_" + name);
  row.reason->setWordWrap(true);
  row.reason->setStyleSheet(QStringLiteral("color: palette(mid); font-style: italic;"));
  row.reason->setVisible(false);
  grid_->addWidget(row.reason, line + 1, 0, 1, 3);

  if (spec.isSwitch()) {
    row.toggle = new QCheckBox(rowsHost_);
    row.toggle->setObjectName("param_" + name);
    row.toggle->setChecked(spec.defaultValue != 0);
    row.toggle->setToolTip(tip);
    grid_->addWidget(row.toggle, line, 1, 1, 2);
    rows_.push_back(row);
    const size_t index = rows_.size() - 1;
    connect(row.toggle, &QCheckBox::toggled, this, [this, index](bool on) {
      rows_[index].value = on ? 1 : 0;
      valueEdited();
    });
    return;
  }
  if (spec.integer) {
    row.integer = new QSpinBox(rowsHost_);
    row.integer->setObjectName("param_" + name);
    row.integer->setRange(static_cast<int>(std::max(spec.min, -2e9)),
                          static_cast<int>(std::min(spec.max, 2e9)));
    row.integer->setValue(static_cast<int>(std::lround(spec.defaultValue)));
    row.integer->setToolTip(tip);
    row.integer->setMinimumWidth(row.integer->fontMetrics().horizontalAdvance("0.00316228") + 30);
    grid_->addWidget(row.integer, line, 2);
    rows_.push_back(row);
    const size_t index = rows_.size() - 1;
    connect(row.integer, &QSpinBox::valueChanged, this, [this, index](int value) {
      rows_[index].value = value;
      valueEdited();
    });
    return;
  }
  row.logSlider = wantsLogSlider(spec);
  row.logLow = spec.min > 0 ? spec.min : spec.max * std::pow(10.0, -kLogDecadesBelow);
  row.slider = new QSlider(Qt::Horizontal, rowsHost_);
  row.slider->setObjectName("slider_" + name);
  row.slider->setRange(0, kSliderSteps);
  row.slider->setToolTip(tip + (row.logSlider ? tr("<br>(log-scaled slider)") : QString()));
  row.real = new CompactSpinBox(rowsHost_);
  row.real->setObjectName("param_" + name);
  row.real->setDecimals(kStoredDecimals);
  row.real->setRange(spec.min, spec.max);
  row.real->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
  row.real->setKeyboardTracking(false);  // emit on Enter / focus loss, not on every keystroke
  row.real->setValue(spec.defaultValue);
  row.real->setToolTip(tip);
  row.real->setMinimumWidth(row.real->fontMetrics().horizontalAdvance("0.00316228") + 30);
  row.slider->setValue(sliderPosition(row, spec.defaultValue));
  grid_->addWidget(row.slider, line, 1);
  grid_->addWidget(row.real, line, 2);
  rows_.push_back(row);

  const size_t index = rows_.size() - 1;
  connect(row.slider, &QSlider::valueChanged, this, [this, index](int position) {
    Row& r = rows_[index];
    const QSignalBlocker block(r.real);
    r.value = sliderValue(r, position);
    r.real->setValue(r.value);
    valueEdited();
  });
  connect(row.slider, &QSlider::sliderPressed, this, &ParameterPanel::dragStarted);
  connect(row.real, &QDoubleSpinBox::valueChanged, this, [this, index](double value) {
    Row& r = rows_[index];
    const QSignalBlocker block(r.slider);
    r.value = value;
    r.slider->setValue(sliderPosition(r, value));
    valueEdited();
  });
}

int ParameterPanel::sliderPosition(const Row& row, double value) const {
  const ParamSpec& s = row.spec;
  double t = 0;
  if (row.logSlider) {
    // Position 0 is the range's minimum (0 or min); the rest is log-spaced from logLow to max.
    if (value <= row.logLow) return 0;
    t = std::log(value / row.logLow) / std::log(s.max / row.logLow);
  } else {
    t = (value - s.min) / (s.max - s.min);
  }
  return static_cast<int>(std::lround(std::clamp(t, 0.0, 1.0) * kSliderSteps));
}

double ParameterPanel::sliderValue(const Row& row, int position) const {
  const ParamSpec& s = row.spec;
  const double t = static_cast<double>(position) / kSliderSteps;
  if (row.logSlider) {
    if (position == 0) return s.min;
    return row.logLow * std::pow(s.max / row.logLow, t);
  }
  return s.min + t * (s.max - s.min);
}

}  // namespace poslab::ui
