#include "training/task_options_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>
#include <cmath>

#include "analysis/target_label.h"
#include "encodings/params.h"
#include "math/formula_unicode.h"
#include "tasks/task_info.h"

namespace poslab::ui {

namespace {
int clampToInt(double v) {
  return static_cast<int>(
      std::clamp(v, static_cast<double>(INT_MIN), static_cast<double>(INT_MAX)));
}
QString number(double v) {
  return QString::number(v, 'g', 6);
}
// An option's row label: its symbol where it has one (omega -> ω, omega2 -> ω₂), else its name
// as words (max_offset -> max offset); the key itself is in the tooltip.
QString optionLabel(const std::string& name) {
  const std::string symbol = paramSymbol(name);
  if (symbol != name) return formulaToUnicode(QString::fromStdString(symbol));
  return QString::fromStdString(name).replace('_', ' ');
}
// A value as its field's text: the shortest that reads back as exactly v (a loaded setup's
// option stays what it was).
QString exact(double v) {
  return QString::number(v, 'g', QLocale::FloatingPointShortest);
}
}  // namespace

TaskOptionsForm::TaskOptionsForm(QWidget* parent) : QWidget(parent) {
  layout_ = new QVBoxLayout(this);
  layout_->setContentsMargins(0, 0, 0, 0);
  TaskConfig c;
  c.id = "kernel-lm";
  setConfig(c);
}

void TaskOptionsForm::setConfig(const poslab::TaskConfig& config) {
  config_ = config;
  rebuild();
}

void TaskOptionsForm::setContext(long long trainLength, long long headDim) {
  config_.trainLength = trainLength;
  config_.headDim = headDim;
  const auto specs = taskOptionSpecs(config_);
  for (Field& f : fields_)
    for (const auto& s : specs)
      if (s.name == f.spec.name) f.spec = s;
  showDefaults();
}

void TaskOptionsForm::rebuild() {
  // One body per task: the old one goes with all its rows.
  delete body_;
  body_ = new QWidget(this);
  layout_->addWidget(body_);
  auto* form = new QFormLayout(body_);
  form->setContentsMargins(0, 0, 0, 0);
  kernel_ = nullptr;
  textFile_ = nullptr;
  fields_.clear();

  const auto kernels = taskKernelChoices(config_.id);
  if (!kernels.empty()) {
    kernel_ = new QComboBox(body_);
    kernel_->setObjectName("taskKernel");
    kernel_->setEditable(true);  // kernel-lm also takes high_jet_rN for any N in 1..16
    for (const auto& k : kernels) {
      kernel_->addItem(QString::fromStdString(k));
      const std::string label = taskKernelLabel(k);  // the list names keys; the tip gives K(d)
      if (label != k)
        kernel_->setItemData(kernel_->count() - 1,
                             "K(d) = " + formulaToUnicode(QString::fromStdString(label)),
                             Qt::ToolTipRole);
    }
    kernel_->setCurrentText(QString::fromStdString(config_.kernel));
    const poslab::TaskInfo& info = poslab::taskInfo(config_.id);  // known: it has kernels
    kernel_->setToolTip(QString::fromStdString(info.kernelHelp));
    form->addRow(QString::fromStdString(info.kernelLabel), kernel_);
    connect(kernel_, &QComboBox::currentTextChanged, this, [this] { Q_EMIT changed(); });
  }
  if (const poslab::TaskInfo* info = poslab::findTaskInfo(config_.id); info && info->takesText) {
    auto* row = new QWidget(body_);
    auto* fileLayout = new QHBoxLayout(row);
    fileLayout->setContentsMargins(0, 0, 0, 0);
    textFile_ = new QLineEdit(QString::fromStdString(config_.textFile), row);
    textFile_->setObjectName("textFile");
    textFile_->setPlaceholderText(tr("default corpus (fortunes)"));
    textFile_->setToolTip(tr("A UTF-8 text file; its last 10% is held out for evaluation"));
    auto* browse = new QPushButton(tr("Browse…"), row);
    browse->setObjectName("textFileBrowse");
    fileLayout->addWidget(textFile_, 1);
    fileLayout->addWidget(browse);
    connect(browse, &QPushButton::clicked, this, [this] {
      const QString file =
          QFileDialog::getOpenFileName(this, tr("Text file for byte-lm"), textFile_->text());
      if (!file.isEmpty()) textFile_->setText(file);
    });
    connect(textFile_, &QLineEdit::textChanged, this, [this] { Q_EMIT changed(); });
    form->addRow(tr("text file"), row);
  }

  for (const auto& spec : taskOptionSpecs(config_)) {
    Field f;
    f.spec = spec;
    const auto given = config_.options.find(spec.name);
    const bool has = given != config_.options.end();
    const double value = has ? given->second : spec.defaultValue;
    const QString name = QString::fromStdString(spec.name);
    QWidget* widget = nullptr;
    if (spec.integer && spec.min == 0 && spec.max == 1) {
      f.check = new QCheckBox(body_);
      f.check->setChecked(value == 1);
      connect(f.check, &QCheckBox::toggled, this, [this] { Q_EMIT changed(); });
      widget = f.check;
    } else if (spec.integer) {
      f.spin = new QSpinBox(body_);
      f.spin->setRange(clampToInt(spec.min), clampToInt(spec.max));
      f.spin->setValue(clampToInt(value));
      connect(f.spin, &QSpinBox::valueChanged, this, [this] { Q_EMIT changed(); });
      widget = f.spin;
    } else {
      f.edit = new QLineEdit(has ? exact(value) : QString(), body_);
      connect(f.edit, &QLineEdit::textChanged, this, [this] { Q_EMIT changed(); });
      widget = f.edit;
    }
    widget->setObjectName("option_" + name);
    widget->setToolTip(name + ": " + QString::fromStdString(spec.help));
    form->addRow(optionLabel(spec.name), widget);
    fields_.push_back(f);
  }
  if (form->rowCount() == 0) form->addRow(new QLabel(tr("(no options)"), body_));
  showDefaults();
}

void TaskOptionsForm::showDefaults() {
  for (Field& f : fields_) {
    if (!f.edit) continue;
    f.edit->setPlaceholderText(
        (f.spec.derived ? tr("auto: %1") : tr("default: %1")).arg(number(f.spec.defaultValue)));
  }
}

bool TaskOptionsForm::write(poslab::TaskConfig& config, QString* error) const {
  if (kernel_) config.kernel = kernel_->currentText().trimmed().toStdString();
  if (textFile_) config.textFile = textFile_->text().trimmed().toStdString();
  config.options.clear();
  for (const Field& f : fields_) {
    double v = f.spec.defaultValue;
    if (f.check) v = f.check->isChecked() ? 1 : 0;
    if (f.spin) v = f.spin->value();
    if (f.edit) {
      const QString text = f.edit->text().trimmed();
      if (text.isEmpty()) continue;  // the task's default, derived or not
      bool ok = false;
      v = text.toDouble(&ok);
      if (!ok || !std::isfinite(v)) {
        if (error)
          *error = tr("task option '%1': '%2' is not a number")
                       .arg(QString::fromStdString(f.spec.name), text);
        return false;
      }
    }
    // Defaults stay implicit, so a derived one keeps following the train length.
    if (v == f.spec.defaultValue && !f.edit) continue;
    config.options[f.spec.name] = v;
  }
  return true;
}

TaskOptionValues TaskOptionsForm::values() const {
  TaskOptionValues v;
  v.taskId = config_.id;
  poslab::TaskConfig written = config_;
  if (!write(written, &v.error)) return v;
  if (kernel_) v.kernel = written.kernel;
  if (textFile_) v.textFile = written.textFile;
  v.options = written.options;
  return v;
}

}  // namespace poslab::ui
