#include "training/training_setup_form.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLineEdit>
#include <QListWidget>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

#include "bridge/catalog.h"
#include "bridge/loaded_families.h"
#include "family_names.h"
#include "tasks/task_options.h"
#include "train/architecture.h"
#include "training/family_start_form.h"
#include "training/precise_spin_box.h"
#include "training/task_options_form.h"

namespace poslab::ui {

namespace {
constexpr int kFamilyListHeight = 150;  // ~6 rows: room for the options below at 860 px

// A spin box for the form's value `member`, with the range formRange gives it (core's limits).
QSpinBox* makeSpin(QWidget* parent, const char* name, FormMember member, int value,
                   const QString& tip = {}) {
  const FormRange r = formRange(member);
  auto* box = new QSpinBox(parent);
  box->setObjectName(name);
  box->setRange(static_cast<int>(r.min), static_cast<int>(r.max));
  box->setValue(value);
  if (!tip.isEmpty()) box->setToolTip(tip);
  return box;
}

QDoubleSpinBox* makeReal(QWidget* parent, const char* name, FormMember member, double value) {
  const FormRange r = formRange(member);
  auto* box = new PreciseSpinBox(parent);
  box->setObjectName(name);
  box->setRange(r.min, r.max);
  box->setValue(value);
  return box;
}
}  // namespace

TrainingSetupForm::TrainingSetupForm(QWidget* parent) : QWidget(parent) {
  const TrainingFormSettings defaults;
  setupTask_.id = defaults.task;
  auto* form = new QFormLayout(this);
  task_ = new QComboBox(this);
  task_->setObjectName("task");
  for (const auto& id : trainingTaskIds()) task_->addItem(QString::fromStdString(id));
  task_->setCurrentText(QString::fromStdString(defaults.task));
  form->addRow(tr("task"), task_);
  auto* taskBox = new QGroupBox(tr("task options"), this);
  auto* taskBoxLayout = new QVBoxLayout(taskBox);
  taskOptions_ = new TaskOptionsForm(taskBox);
  taskOptions_->setObjectName("taskOptions");
  taskBoxLayout->addWidget(taskOptions_);
  form->addRow(taskBox);

  families_ = new QListWidget(this);
  families_->setObjectName("trainFamilies");
  families_->setToolTip(tr("Check 1-4 families; they train on identical batches"));
  for (const auto& f : familyCatalog()) {
    const bool on = std::find(defaults.families.begin(), defaults.families.end(), f.id) !=
                    defaults.families.end();
    addFamilyItem(f, on);
  }
  for (const std::string& id : loadedFamilies().ids()) addFamilyItem(*findFamily(id), false);
  connect(&loadedFamilies(), &LoadedFamilies::familyAdded, this, [this](const QString& id) {
    if (const FamilyDescription* f = findFamily(id.toStdString())) addFamilyItem(*f, false);
  });
  families_->setMaximumHeight(kFamilyListHeight);
  form->addRow(tr("families"), families_);
  auto* startBox = new QGroupBox(tr("start: family parameters and pins"), this);
  startBox->setToolTip(
      tr("What each checked family's runs start from: values the setup sets in the normal font, "
         "the family's own start in italics (edit one to set it)"));
  auto* startLayout = new QVBoxLayout(startBox);
  start_ = new FamilyStartForm(startBox);
  start_->setObjectName("familyStart");
  startLayout->addWidget(start_);
  form->addRow(startBox);

  steps_ = makeSpin(this, "steps", &TrainingFormSettings::steps, static_cast<int>(defaults.steps));
  form->addRow(tr("steps"), steps_);
  lr_ = makeReal(this, "lr", &TrainingFormSettings::lr, defaults.lr);
  lr_->setSingleStep(1e-4);
  form->addRow(tr("peak lr"), lr_);
  seed_ = makeSpin(this, "seed", &TrainingFormSettings::seed, static_cast<int>(defaults.seed));
  form->addRow(tr("seed"), seed_);
  trainLength_ = makeSpin(this, "trainLength", &TrainingFormSettings::trainLength,
                          static_cast<int>(defaults.trainLength));
  form->addRow(tr("train length"), trainLength_);
  formMinLength_ = trainLength_->minimum();
  batch_ = makeSpin(this, "batch", &TrainingFormSettings::batch, static_cast<int>(defaults.batch));
  form->addRow(tr("batch"), batch_);
  evalLengths_ = new QLineEdit(defaults.evalLengths, this);
  evalLengths_->setObjectName("evalLengths");
  evalLengths_->setToolTip(tr("Comma-separated evaluation lengths, e.g. 64,256,1024"));
  form->addRow(tr("eval lengths"), evalLengths_);
  evalEvery_ = makeSpin(
      this, "evalEvery", &TrainingFormSettings::evalEvery, static_cast<int>(defaults.evalEvery),
      tr("Evaluate (and refresh the maps and samples) every N steps; 0: at the end"));
  evalEvery_->setSpecialValueText(tr("at the end"));
  form->addRow(tr("eval every"), evalEvery_);
  evalSequences_ =
      makeSpin(this, "evalSequences", &TrainingFormSettings::evalSequences,
               static_cast<int>(defaults.evalSequences), tr("Sequences per evaluation length"));
  form->addRow(tr("eval sequences"), evalSequences_);
  device_ = new QComboBox(this);
  device_->setObjectName("device");
  for (const char* d : {"auto", "cpu", "cuda"}) device_->addItem(QString::fromLatin1(d));
  device_->setCurrentText(QString::fromStdString(defaults.device));
  device_->setToolTip(
      tr("auto: the GPU when LibTorch sees one, else the CPU; cuda where there is "
         "none is refused when the runs are built"));
  form->addRow(tr("device"), device_);

  auto* modelBox = new QGroupBox(tr("model"), this);
  auto* modelForm = new QFormLayout(modelBox);
  dModel_ =
      makeSpin(modelBox, "dModel", &TrainingFormSettings::dModel, static_cast<int>(defaults.dModel),
               tr("Residual width C; must be a multiple of heads"));
  heads_ = makeSpin(modelBox, "heads", &TrainingFormSettings::heads,
                    static_cast<int>(defaults.heads), tr("Attention heads H; head size C / H"));
  layers_ = makeSpin(modelBox, "layers", &TrainingFormSettings::layers,
                     static_cast<int>(defaults.layers), tr("Transformer blocks"));
  positionLrScale_ = makeReal(modelBox, "positionLrScale", &TrainingFormSettings::positionLrScale,
                              defaults.positionLrScale);
  positionLrScale_->setToolTip(tr("Position parameters (γ, η, gates, …) train at lr times this"));
  architecture_ = new QComboBox(modelBox);
  architecture_->setObjectName("architecture");
  for (const poslab::Architecture& a : poslab::architectures()) {
    architecture_->addItem(QString::fromStdString(a.id));
    architecture_->setItemData(architecture_->count() - 1, QString::fromStdString(a.description),
                               Qt::ToolTipRole);
  }
  architecture_->setCurrentText(QString::fromStdString(defaults.architecture));
  architecture_->setToolTip(
      tr("The model and optimiser choices of PosLab or of a paper's reference code (norm, "
         "biases, tied head, MLP width, initialisation, schedule, weight decay); "
         "docs/SESSIONS.md lists them"));
  modelForm->addRow(tr("architecture"), architecture_);
  modelForm->addRow(tr("d_model"), dModel_);
  modelForm->addRow(tr("heads"), heads_);
  modelForm->addRow(tr("layers"), layers_);
  modelForm->addRow(tr("position lr ×"), positionLrScale_);
  form->addRow(modelBox);

  connect(task_, &QComboBox::currentTextChanged, this, &TrainingSetupForm::onTaskChanged);
  connect(trainLength_, &QSpinBox::valueChanged, this, [this] {
    taskOptions_->setContext(trainLength_->value(), modelHeadDim());
    Q_EMIT sampleLengthsChanged();
  });
  // kernel-lm's default omega follows the model's head size (the trainer sets it from the model).
  for (QSpinBox* box : {dModel_, heads_})
    connect(box, &QSpinBox::valueChanged, this,
            [this] { taskOptions_->setContext(trainLength_->value(), modelHeadDim()); });
  auto followModel = [this] {
    start_->setModel(dModel_->value(), heads_->value(), trainLength_->value());
  };
  for (QSpinBox* box : {dModel_, heads_, trainLength_})
    connect(box, &QSpinBox::valueChanged, this, followModel);
  connect(families_, &QListWidget::itemChanged, this,
          [this] { start_->setFamilies(settings().families); });
  start_->setFamilies(defaults.families);
  followModel();
  connect(evalLengths_, &QLineEdit::textChanged, this, &TrainingSetupForm::sampleLengthsChanged);
  connect(taskOptions_, &TaskOptionsForm::changed, this,
          &TrainingSetupForm::followTaskMinimumLength);
  onTaskChanged();
}

// Each item's family id is its data; its text is the family's short name (a loaded family's
// title, not its long file:PATH), with the id in its tool tip.
std::string TrainingSetupForm::itemFamily(const QListWidgetItem* item) {
  return item->data(Qt::UserRole).toString().toStdString();
}

QListWidgetItem* TrainingSetupForm::familyItem(const std::string& id) const {
  for (int i = 0; i < families_->count(); ++i)
    if (itemFamily(families_->item(i)) == id) return families_->item(i);
  return nullptr;
}

void TrainingSetupForm::addFamilyItem(const FamilyDescription& family, bool checked) {
  QListWidgetItem* item = familyItem(family.id);  // loaded again: keeps its check
  if (!item) {
    item = new QListWidgetItem(families_);
    item->setData(Qt::UserRole, QString::fromStdString(family.id));
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
  }
  // A new title can make two loaded families' short names meet: every loaded one is named again.
  for (int i = 0; i < families_->count(); ++i) {
    QListWidgetItem* it = families_->item(i);
    const std::string id = itemFamily(it);
    it->setText(familyShortName(id));
    const FamilyDescription* f = findFamily(id);
    it->setToolTip(f && f->isLoaded() ? familyToolTip(id)
                                      : QString::fromStdString(f ? f->title : id));
  }
}

TrainingFormSettings TrainingSetupForm::settings() const {
  TrainingFormSettings s;
  s.task = task_->currentText().toStdString();
  s.families.clear();
  for (int i = 0; i < families_->count(); ++i)
    if (families_->item(i)->checkState() == Qt::Checked)
      s.families.push_back(itemFamily(families_->item(i)));
  s.steps = steps_->value();
  s.lr = lr_->value();
  s.seed = static_cast<uint64_t>(seed_->value());
  s.trainLength = trainLength_->value();
  s.batch = batch_->value();
  s.evalLengths = evalLengths_->text();
  s.evalEvery = evalEvery_->value();
  s.evalSequences = evalSequences_->value();
  s.dModel = dModel_->value();
  s.heads = heads_->value();
  s.layers = layers_->value();
  s.positionLrScale = positionLrScale_->value();
  s.device = device_->currentText().toStdString();
  s.architecture = architecture_->currentText().toStdString();
  s.taskOptions = taskOptions_->values();
  s.start = start_->start();
  return s;
}

void TrainingSetupForm::setSettings(const TrainingFormSettings& s) {
  showingSettings_ = true;
  trainLength_->setMinimum(formMinLength_);  // the setup's own length, checked when it is built
  task_->setCurrentText(QString::fromStdString(s.task));
  selectFamilies(s.families);
  steps_->setValue(static_cast<int>(s.steps));
  lr_->setValue(s.lr);
  seed_->setValue(static_cast<int>(s.seed));
  trainLength_->setValue(static_cast<int>(s.trainLength));
  batch_->setValue(static_cast<int>(s.batch));
  dModel_->setValue(static_cast<int>(s.dModel));
  heads_->setValue(static_cast<int>(s.heads));
  layers_->setValue(static_cast<int>(s.layers));
  positionLrScale_->setValue(s.positionLrScale);
  device_->setCurrentText(QString::fromStdString(s.device));
  architecture_->setCurrentText(QString::fromStdString(s.architecture));
  evalEvery_->setValue(static_cast<int>(s.evalEvery));
  evalSequences_->setValue(static_cast<int>(s.evalSequences));
  // The settings' options (the task box may not have changed).
  poslab::TaskConfig t = shownTask(s.task);
  const TaskOptionValues& v = s.taskOptions;
  if (v.taskId == s.task) {
    if (v.kernel) t.kernel = *v.kernel;
    if (v.textFile) t.textFile = *v.textFile;
    t.options = v.options;
  }
  taskOptions_->setConfig(t);
  evalLengths_->setText(s.evalLengths);
  if (s.start) start_->setStart(*s.start);
  showingSettings_ = false;
  followTaskMinimumLength();
}

bool TrainingSetupForm::selectFamilies(const std::vector<std::string>& ids) {
  for (const auto& id : ids)
    if (!familyItem(id)) return false;
  for (int i = 0; i < families_->count(); ++i) {
    QListWidgetItem* item = families_->item(i);
    const bool on = std::find(ids.begin(), ids.end(), itemFamily(item)) != ids.end();
    item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
  }
  return true;
}

std::vector<long long> TrainingSetupForm::sampleLengths() const {
  std::vector<long long> lengths{trainLength_->value()};
  if (auto evals = parseEvalLengths(evalLengths_->text()))
    lengths.insert(lengths.end(), evals->begin(), evals->end());
  return lengths;
}

long long TrainingSetupForm::modelHeadDim() const {
  return std::max(1, dModel_->value() / std::max(1, heads_->value()));
}

poslab::TaskConfig TrainingSetupForm::shownTask(const std::string& id) const {
  poslab::TaskConfig t;
  if (id == setupTask_.id) {
    t = setupTask_;
  } else {
    t.id = id;
    const std::string kernel = taskDefaultKernel(id);  // mixed_raw / recency_weak_jet, as the CLI
    if (!kernel.empty()) t.kernel = kernel;
  }
  t.trainLength = trainLength_->value();
  t.headDim = modelHeadDim();  // as the trainer does: kernel-lm's omega follows the head size
  return t;
}

void TrainingSetupForm::onTaskChanged() {
  taskOptions_->setConfig(shownTask(task_->currentText().toStdString()));
  followTaskMinimumLength();
}

void TrainingSetupForm::followTaskMinimumLength() {
  if (showingSettings_) return;
  poslab::TaskConfig t = shownTask(task_->currentText().toStdString());
  if (taskOptions_->taskId() != t.id || !taskOptions_->write(t, nullptr)) return;
  const long long need = poslab::taskMinLength(t);  // 0: not known here (the run names why)
  const int minimum =
      static_cast<int>(std::clamp<long long>(need, formMinLength_, trainLength_->maximum()));
  trainLength_->setMinimum(minimum);
  trainLength_->setToolTip(
      minimum > formMinLength_
          ? tr("Tokens per training sequence; %1 with these options needs at least %2")
                .arg(QString::fromStdString(t.id))
                .arg(minimum)
          : tr("Tokens per training sequence"));
}

}  // namespace poslab::ui
