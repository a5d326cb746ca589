#include "training/family_start_form.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>

#include <algorithm>
#include <set>

#include "bridge/catalog.h"
#include "bridge/loaded_families.h"
#include "family_names.h"
#include "math/formula_unicode.h"
#include "model/model_config.h"  // isModelSizedFamilyParam: plain data, no torch
#include "training/precise_spin_box.h"

namespace poslab::ui {

namespace {
// A parameter's row label: its symbol where it has one (gamma -> γ; a loaded family's from its
// metadata), else its name.
QString label(const std::string& name, const FamilyDescription* family = nullptr) {
  const std::string symbol = family ? familyParamSymbol(*family, name) : paramSymbol(name);
  return symbol == name ? QString::fromStdString(name)
                        : formulaToUnicode(QString::fromStdString(symbol));
}
}  // namespace

FamilyStartForm::FamilyStartForm(QWidget* parent) : QWidget(parent) {
  rows_ = new QFormLayout(this);
  rows_->setContentsMargins(0, 0, 0, 0);
  // A family file loaded again may hold another module: its rows come from its new metadata.
  connect(&loadedFamilies(), &LoadedFamilies::familyAdded, this,
          [this](const QString& id) { familyReloaded(id.toStdString()); });
}

void FamilyStartForm::familyReloaded(const std::string& family) {
  if (std::find(families_.begin(), families_.end(), family) == families_.end()) return;
  // Values set for parameters the module no longer has would be refused at Play.
  if (const FamilyDescription* d = findFamily(family); d && start_.params.count(family)) {
    auto& set = start_.params[family];
    for (auto it = set.begin(); it != set.end();)
      it = std::any_of(d->params.begin(), d->params.end(),
                       [&](const ParamSpec& p) { return p.name == it->first; })
               ? std::next(it)
               : set.erase(it);
  }
  rebuild();
}

void FamilyStartForm::setStart(const FamilyStart& start) {
  start_ = start;
  rebuild();
}

void FamilyStartForm::setFamilies(const std::vector<std::string>& families) {
  if (families == families_) return;
  families_ = families;
  rebuild();
}

void FamilyStartForm::setModel(long long dModel, long long heads, long long trainLength) {
  dModel_ = dModel;
  heads_ = heads;
  trainLength_ = trainLength;
  refreshValues();
}

QDoubleSpinBox* FamilyStartForm::valueBox(const std::string& family,
                                          const std::string& name) const {
  auto it = boxes_.find({family, name});
  return it == boxes_.end() ? nullptr : it->second;
}

QCheckBox* FamilyStartForm::pinBox(const std::string& pin) const {
  auto it = pins_.find(pin);
  return it == pins_.end() ? nullptr : it->second;
}

QString FamilyStartForm::problem(const std::string& family) const {
  auto it = problems_.find(family);
  return it == problems_.end() ? QString() : it->second->text();
}

bool FamilyStartForm::isSet(const std::string& family, const std::string& name) const {
  auto f = start_.params.find(family);
  return f != start_.params.end() && f->second.count(name);
}

void FamilyStartForm::rebuild() {
  filling_ = true;  // new boxes take their ranges and values: no edits
  while (rows_->rowCount() > 0) rows_->removeRow(0);
  boxes_.clear();
  modelValues_.clear();
  pins_.clear();
  problems_.clear();
  for (const std::string& family : families_) {
    const FamilyDescription* d = findFamily(family);
    if (!d) continue;
    auto* title =
        new QLabel(QStringLiteral("<b>%1</b>").arg(familyShortName(family).toHtmlEscaped()), this);
    title->setToolTip(familyToolTip(family));
    rows_->addRow(title);
    for (const ParamSpec& p : d->params) {
      const QString tip = QString::fromStdString(p.name + ": " + p.description);
      if (isModelSizedFamilyParam(p.name)) {
        auto* fixed = new QLabel(this);
        fixed->setToolTip(tr("%1\nSet by the model's size (d_model / heads)").arg(tip));
        modelValues_[{family, p.name}] = fixed;
        rows_->addRow(label(p.name, d), fixed);
        continue;
      }
      auto* box = new PreciseSpinBox(this);
      box->setObjectName(QString::fromStdString("start_" + family + "_" + p.name));
      box->setRange(p.min, p.max);
      if (p.integer) box->setSingleStep(1);
      box->setToolTip(tip);
      connect(box, &QDoubleSpinBox::valueChanged, this, [this, family, name = p.name](double v) {
        if (filling_) return;
        start_.params[family][name] = v;
        refreshValues();
      });
      boxes_[{family, p.name}] = box;
      rows_->addRow(label(p.name, d), box);
    }
    auto* problem = new QLabel(this);
    problem->setObjectName(QString::fromStdString("startProblem_" + family));
    problem->setWordWrap(true);
    problem->setStyleSheet(QStringLiteral("color: #b00020"));
    problem->setVisible(false);
    problems_[family] = problem;
    rows_->addRow(problem);
  }
  // One list of pins for every family (config.model.pinned), each offered by the families that
  // declare it.
  std::vector<std::string> offered;
  std::map<std::string, QStringList> by;
  for (const std::string& family : families_)
    for (const std::string& pin : familyPins(family)) {
      if (!by.count(pin)) offered.push_back(pin);
      by[pin] << QString::fromStdString(family);
    }
  for (const std::string& pin : start_.pinned)  // a setup's pin no checked family declares
    if (!by.count(pin)) offered.push_back(pin);
  if (!offered.empty()) {
    auto* pinRow = new QWidget(this);
    auto* pinLayout = new QHBoxLayout(pinRow);
    pinLayout->setContentsMargins(0, 0, 0, 0);
    for (const std::string& pin : offered) {
      auto* box = new QCheckBox(label(pin), pinRow);
      box->setObjectName(QString::fromStdString("pin_" + pin));
      box->setToolTip(
          by.count(pin)
              ? tr("Hold %1 fixed at its start (learned by %2; a checked family that does not "
                   "learn it refuses the run)")
                    .arg(QString::fromStdString(pin), by[pin].join(", "))
              : tr("No checked family learns %1: the run is refused while it is pinned")
                    .arg(QString::fromStdString(pin)));
      box->setChecked(std::find(start_.pinned.begin(), start_.pinned.end(), pin) !=
                      start_.pinned.end());
      connect(box, &QCheckBox::toggled, this, [this, pin](bool on) {
        auto& p = start_.pinned;
        p.erase(std::remove(p.begin(), p.end(), pin), p.end());
        if (on) p.push_back(pin);
        refreshValues();  // a pinned parameter is not learned: its start is not mapped
      });
      pins_[pin] = box;
      pinLayout->addWidget(box);
    }
    pinLayout->addStretch(1);
    rows_->addRow(tr("pins"), pinRow);
  }
  refreshValues();
}

void FamilyStartForm::refreshValues() {
  filling_ = true;
  for (const std::string& family : families_) {
    const FamilyDescription* description = findFamily(family);
    if (!description) continue;
    const auto given = start_.params.find(family);
    const auto values = familyStartValues(
        family, given == start_.params.end() ? std::map<std::string, double>{} : given->second,
        dModel_, heads_, trainLength_);
    for (const auto& [key, box] : boxes_) {
      if (key.first != family) continue;
      // What core fills in, else the parameter's default (what the run's ParamSet takes): a
      // box left alone would show its range's minimum.
      const auto v = values.find(key.second);
      if (v != values.end()) {
        box->setValue(v->second);
      } else {
        for (const ParamSpec& p : description->params)
          if (p.name == key.second) box->setValue(p.defaultValue);
      }
      // Set values in the normal font, what core fills in in italics.
      QFont font = box->font();
      font.setItalic(!isSet(family, key.second));
      box->setFont(font);
    }
    for (const auto& [key, shown] : modelValues_) {
      if (key.first != family) continue;
      const auto v = values.find(key.second);
      shown->setText(v == values.end() ? tr("(the model's)") : QString::number(v->second));
    }
    if (auto p = problems_.find(family); p != problems_.end()) {
      const std::string why = familyStartProblem(
          family, given == start_.params.end() ? std::map<std::string, double>{} : given->second,
          dModel_, heads_, trainLength_, start_.pinned);
      p->second->setText(QString::fromStdString(why));
      p->second->setVisible(!why.empty());
    }
  }
  filling_ = false;
}

}  // namespace poslab::ui
