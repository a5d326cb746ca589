#include "training/training_panel.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>
#include <QValidator>

#include <algorithm>
#include <climits>
#include <cmath>
#include <exception>

#include "bridge/catalog.h"
#include "bridge/trained_model.h"
#include "plot_style.h"
#include "train/experiment_plan.h"
#include "train/run_limits.h"
#include "training/lag_response_view.h"
#include "training/model_attention_view.h"
#include "training/position_history_view.h"
#include "training/sample_view.h"
#include "training/task_options_form.h"

namespace poslab::ui {

struct TrainingPanel::PendingSave {
  int generation = 0;  // the runs that were asked
  int remaining = 0;   // answers still to come
  std::vector<SavedCheckpoint> saved;
  QString error;  // the first failure
  CheckpointsSaved done;
};

namespace {
constexpr int kReplotMs = 40;  // snapshots can arrive every few ms; the eye needs ~25 Hz
constexpr long long kMaxAttentionLength = 1024;  // as the explorer's map: weights stay tens of MB
constexpr int kFamilyListHeight = 150;           // ~6 rows: room for the options below at 860 px

// QDoubleSpinBox rounds what it is given to its decimals; this one keeps 17 (enough for any lr
// a setup names, e.g. 2.5e-5) and shows the shortest text that reads back as the same number
// ("2.5e-05", "0.003"), so a loaded value is exactly what the runs train with.
class PreciseSpinBox : public QDoubleSpinBox {
 public:
  static constexpr int kDecimals = 17;
  explicit PreciseSpinBox(QWidget* parent) : QDoubleSpinBox(parent) { setDecimals(kDecimals); }
  QString textFromValue(double v) const override {
    return locale().toString(v, 'g', QLocale::FloatingPointShortest);
  }
  double valueFromText(const QString& text) const override {
    return locale().toDouble(text.trimmed());
  }
  QValidator::State validate(QString& text, int&) const override {
    bool ok = false;
    const double v = locale().toDouble(text.trimmed(), &ok);
    return ok && v >= minimum() && v <= maximum() ? QValidator::Acceptable
                                                  : QValidator::Intermediate;
  }
};

QSpinBox* makeSpin(QWidget* parent, const char* name, int lo, int hi, int value,
                   const QString& tip) {
  auto* box = new QSpinBox(parent);
  box->setObjectName(name);
  box->setRange(lo, hi);
  box->setValue(value);
  box->setToolTip(tip);
  return box;
}

QCustomPlot* makePlot(QWidget* parent, const QString& name, const QString& x, const QString& y) {
  auto* plot = new QCustomPlot(parent);
  plot->setObjectName(name);
  stylePlot(plot, x, y);
  plot->setMinimumSize(300, 180);
  placeLegendTop(plot);
  return plot;
}

// "64, 256,1024" -> {64, 256, 1024}, "" -> {}; false on anything else.
bool parseLengths(const QString& text, std::vector<long long>& out) {
  out.clear();
  for (const QString& part : text.split(',', Qt::SkipEmptyParts)) {
    bool ok = false;
    const long long v = part.trimmed().toLongLong(&ok);
    if (!ok || v <= 0) return false;
    out.push_back(v);
  }
  return true;  // empty: the train length (docs/SESSIONS.md, run.eval_lengths)
}
}  // namespace

TrainingPanel::TrainingPanel(QWidget* parent) : QWidget(parent) {
  setup_.name = "live";
  setup_.base.task.id = "kernel-lm";
  setup_.base.run.evalEvery = 50;      // a point on the length curve every 50 steps
  setup_.base.run.evalSequences = 32;  // small evaluations keep the live view moving
  auto* split = new QSplitter(Qt::Horizontal, this);
  auto* outer = new QHBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(split);

  // Left: the buttons, the run state and the status stay in view; the settings scroll below.
  auto* left = new QWidget(split);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  auto* scroll = new QScrollArea(left);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* controls = new QWidget(scroll);
  scroll->setWidget(controls);
  auto* form = new QFormLayout(controls);
  task_ = new QComboBox(controls);
  task_->setObjectName("task");
  for (const auto& id : trainingTaskIds()) task_->addItem(QString::fromStdString(id));
  task_->setCurrentText("kernel-lm");
  form->addRow(tr("task"), task_);
  auto* taskBox = new QGroupBox(tr("task options"), controls);
  auto* taskBoxLayout = new QVBoxLayout(taskBox);
  taskOptions_ = new TaskOptionsForm(taskBox);
  taskOptions_->setObjectName("taskOptions");
  taskBoxLayout->addWidget(taskOptions_);
  form->addRow(taskBox);

  families_ = new QListWidget(controls);
  families_->setObjectName("trainFamilies");
  families_->setToolTip(tr("Check 1-4 families; they train on identical batches"));
  for (const auto& f : familyCatalog()) {
    auto* item = new QListWidgetItem(QString::fromStdString(f.id), families_);
    const bool on = f.id == "jordan-stabilized" || f.id == "rope";
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
  }
  families_->setMaximumHeight(kFamilyListHeight);
  form->addRow(tr("families"), families_);

  steps_ = new QSpinBox(controls);
  steps_->setObjectName("steps");
  steps_->setRange(1, static_cast<int>(kMaxTrainSteps));
  steps_->setValue(200);
  form->addRow(tr("steps"), steps_);
  lr_ = new PreciseSpinBox(controls);
  lr_->setObjectName("lr");
  lr_->setRange(1e-5, 1);
  lr_->setSingleStep(1e-4);
  lr_->setValue(3e-3);
  form->addRow(tr("peak lr"), lr_);
  seed_ = new QSpinBox(controls);
  seed_->setObjectName("seed");
  seed_->setRange(0, 1000000);
  form->addRow(tr("seed"), seed_);
  trainLength_ = new QSpinBox(controls);
  trainLength_->setObjectName("trainLength");
  trainLength_->setRange(static_cast<int>(kMinTrainLength), static_cast<int>(kMaxTrainLength));
  trainLength_->setValue(64);
  form->addRow(tr("train length"), trainLength_);
  batch_ = new QSpinBox(controls);
  batch_->setObjectName("batch");
  batch_->setRange(1, 4096);
  batch_->setValue(32);
  form->addRow(tr("batch"), batch_);
  evalLengths_ = new QLineEdit("64,128,256", controls);
  evalLengths_->setObjectName("evalLengths");
  evalLengths_->setToolTip(tr("Comma-separated evaluation lengths, e.g. 64,256,1024"));
  form->addRow(tr("eval lengths"), evalLengths_);
  evalEvery_ =
      makeSpin(controls, "evalEvery", 0, 1000000, 50,
               tr("Evaluate (and refresh the maps and samples) every N steps; 0: at the end"));
  evalEvery_->setSpecialValueText(tr("at the end"));
  form->addRow(tr("eval every"), evalEvery_);
  evalSequences_ =
      makeSpin(controls, "evalSequences", 1, 1000000, 32, tr("Sequences per evaluation length"));
  form->addRow(tr("eval sequences"), evalSequences_);

  auto* modelBox = new QGroupBox(tr("model"), controls);
  auto* modelForm = new QFormLayout(modelBox);
  dModel_ = makeSpin(modelBox, "dModel", 4, 4096, 64,
                     tr("Residual width C; must be a multiple of heads"));
  heads_ = makeSpin(modelBox, "heads", 1, 64, 4, tr("Attention heads H; head size C / H"));
  layers_ = makeSpin(modelBox, "layers", 1, 48, 2, tr("Transformer blocks"));
  positionLrScale_ = new PreciseSpinBox(modelBox);
  positionLrScale_->setObjectName("positionLrScale");
  positionLrScale_->setRange(0.001, 100000);
  positionLrScale_->setValue(1);
  positionLrScale_->setToolTip(
      tr("Position parameters (gamma, eta, gates, ...) train at lr times this"));
  modelForm->addRow(tr("d_model"), dModel_);
  modelForm->addRow(tr("heads"), heads_);
  modelForm->addRow(tr("layers"), layers_);
  modelForm->addRow(tr("position lr ×"), positionLrScale_);
  form->addRow(modelBox);

  auto* buttons = new QHBoxLayout;
  playButton_ = new QPushButton(tr("Play"), left);
  playButton_->setObjectName("playButton");
  pauseButton_ = new QPushButton(tr("Pause"), left);
  pauseButton_->setObjectName("pauseButton");
  stepButton_ = new QPushButton(tr("Step"), left);
  stepButton_->setObjectName("stepButton");
  resetButton_ = new QPushButton(tr("Reset"), left);
  resetButton_->setObjectName("resetButton");
  for (auto* b : {playButton_, pauseButton_, stepButton_, resetButton_}) buttons->addWidget(b);
  auto* stateRow = new QHBoxLayout;
  stepLabel_ = new QLabel(tr("step 0"), left);
  stepLabel_->setObjectName("stepLabel");
  runState_ = new QLabel(tr("not started"), left);
  runState_->setObjectName("runState");
  runState_->setWordWrap(true);
  runState_->setToolTip(tr("playing, paused, finished, or diverged (the run paused itself)"));
  stateRow->addWidget(stepLabel_);
  stateRow->addWidget(runState_, 1);
  status_ = new QLabel(left);
  status_->setObjectName("trainingStatus");
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);  // messages can be copied
  leftLayout->addLayout(buttons);
  leftLayout->addLayout(stateRow);
  leftLayout->addWidget(status_);
  leftLayout->addWidget(scroll, 1);

  viewTabs_ = new QTabWidget(split);
  viewTabs_->setObjectName("trainingViews");
  auto* plots = new QWidget(viewTabs_);
  auto* plotsLayout = new QVBoxLayout(plots);
  plotsLayout->setContentsMargins(0, 0, 0, 0);
  lossPlot_ = makePlot(plots, "lossPlot", tr("step"), tr("training loss"));
  accuracyPlot_ = makePlot(plots, "accuracyPlot", tr("step"), tr("training accuracy"));
  auto* evalRow = new QHBoxLayout;
  evalMetric_ = new QComboBox(plots);
  evalMetric_->setObjectName("evalMetric");
  evalMetric_->addItems({tr("accuracy"), tr("loss")});
  evalRow->addWidget(new QLabel(tr("evaluation vs length:"), plots));
  evalRow->addWidget(evalMetric_);
  evalRow->addStretch(1);
  evalPlot_ = makePlot(plots, "evalPlot", tr("evaluation length T"), tr("accuracy"));
  setLogAxis(evalPlot_->xAxis, true);
  evalPlot_->xAxis->setNumberFormat("f");  // lengths read better as 64, 256, 1024 than 10^n
  plotsLayout->addWidget(lossPlot_, 1);
  plotsLayout->addWidget(accuracyPlot_, 1);
  plotsLayout->addLayout(evalRow);
  plotsLayout->addWidget(evalPlot_, 1);
  positionView_ = new PositionHistoryView(viewTabs_);
  attentionView_ = new ModelAttentionView(viewTabs_);
  sampleView_ = new SampleView(viewTabs_);
  lagResponseView_ = new LagResponseView(viewTabs_);
  viewTabs_->addTab(plots, tr("Curves"));
  viewTabs_->addTab(positionView_, tr("Position parameters"));
  viewTabs_->addTab(attentionView_, tr("Attention"));
  viewTabs_->addTab(sampleView_, tr("Samples"));
  viewTabs_->addTab(lagResponseView_, tr("Learned kernel"));
  // The controls scroll vertically only: wide enough for the button row, never cut.
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setMinimumWidth(controls->minimumSizeHint().width() +
                          scroll->verticalScrollBar()->sizeHint().width());
  split->addWidget(left);
  split->addWidget(viewTabs_);
  split->setStretchFactor(1, 1);
  split->setSizes({320, 700});

  replotTimer_.setSingleShot(true);
  replotTimer_.setInterval(kReplotMs);
  connect(&replotTimer_, &QTimer::timeout, this, &TrainingPanel::replot);
  connect(playButton_, &QPushButton::clicked, this, &TrainingPanel::play);
  connect(pauseButton_, &QPushButton::clicked, this, &TrainingPanel::pause);
  connect(stepButton_, &QPushButton::clicked, this, &TrainingPanel::stepOnce);
  connect(resetButton_, &QPushButton::clicked, this, &TrainingPanel::reset);
  connect(task_, &QComboBox::currentTextChanged, this, &TrainingPanel::onTaskChanged);
  connect(trainLength_, &QSpinBox::valueChanged, this, [this] {
    taskOptions_->setContext(trainLength_->value(), modelHeadDim());
    updateSampleLengths();
  });
  // kernel-lm's default omega follows the model's head size (the trainer sets it from the model).
  for (QSpinBox* box : {dModel_, heads_})
    connect(box, &QSpinBox::valueChanged, this,
            [this] { taskOptions_->setContext(trainLength_->value(), modelHeadDim()); });
  connect(evalLengths_, &QLineEdit::textChanged, this, &TrainingPanel::updateSampleLengths);
  connect(attentionView_, &ModelAttentionView::requestChanged, this,
          &TrainingPanel::sendAttentionRequest);
  connect(sampleView_, &SampleView::requestChanged, this, &TrainingPanel::sendSamplesRequest);
  connect(lagResponseView_, &LagResponseView::measureRequested, this,
          &TrainingPanel::sendLagResponseRequest);
  onTaskChanged();
  updateSampleLengths();
  connect(evalMetric_, &QComboBox::currentIndexChanged, this, [this] {
    evalPlot_->yAxis->setLabel(evalMetric_->currentText());
    for (size_t i = 0; i < runs_.size(); ++i) onSnapshot(static_cast<int>(i), Snapshot{});
  });
}

TrainingPanel::~TrainingPanel() {
  pendingSave_.reset();  // nobody to tell any more
  clearRuns();
}

long long TrainingPanel::stepCount() const {
  if (states_.empty()) return 0;
  long long s = states_.front().step;
  for (const RunState& r : states_) s = std::min(s, r.step);
  return s;
}

bool TrainingPanel::isPlaying() const {
  return std::any_of(runs_.begin(), runs_.end(), [](const auto& r) { return r->isPlaying(); });
}

bool TrainingPanel::allFinished() const {
  return !states_.empty() &&
         std::all_of(states_.begin(), states_.end(), [](const RunState& s) { return s.finished; });
}

bool TrainingPanel::selectFamilies(const std::vector<std::string>& ids) {
  for (const auto& id : ids)
    if (families_->findItems(QString::fromStdString(id), Qt::MatchExactly).isEmpty()) return false;
  for (int i = 0; i < families_->count(); ++i) {
    QListWidgetItem* item = families_->item(i);
    const bool on = std::find(ids.begin(), ids.end(), item->text().toStdString()) != ids.end();
    item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
  }
  return true;
}

QString TrainingPanel::statusText() const {
  return status_->text();
}

poslab::ExperimentSpec TrainingPanel::experiment() const {
  poslab::ExperimentSpec e = setup_;
  TrainConfig& c = e.base;
  c.task.id = task_->currentText().toStdString();
  if (c.task.id != setup_.base.task.id) e.variants.clear();  // the setup's variants are its task's
  // The form shows this task (onTaskChanged); text that is not a number falls back to the
  // default here, and specsFromControls refuses it with a message before anything runs.
  if (taskOptions_->taskId() == c.task.id) {
    TaskConfig t = c.task;
    if (taskOptions_->write(t, nullptr)) c.task = t;
  }
  c.model.dModel = dModel_->value();
  c.model.heads = heads_->value();
  c.model.layers = layers_->value();
  c.optim.positionLrScale = positionLrScale_->value();
  c.run.evalEvery = evalEvery_->value();
  c.run.evalSequences = evalSequences_->value();
  c.run.steps = steps_->value();
  c.optim.lr = lr_->value();
  c.run.seed = static_cast<uint64_t>(seed_->value());
  e.seeds = {c.run.seed};
  c.task.trainLength = trainLength_->value();
  c.optim.batch = batch_->value();
  std::vector<long long> lengths;
  if (parseLengths(evalLengths_->text(), lengths)) c.run.evalLengths = lengths;
  e.families.clear();
  for (int i = 0; i < families_->count(); ++i)
    if (families_->item(i)->checkState() == Qt::Checked)
      e.families.push_back(families_->item(i)->text().toStdString());
  return e;
}

QString TrainingPanel::experimentProblem(const poslab::ExperimentSpec& spec) const {
  if (task_->findText(QString::fromStdString(spec.base.task.id)) < 0)
    return tr("unknown task '%1'").arg(QString::fromStdString(spec.base.task.id));
  if (spec.families.empty() || spec.families.size() > kMaxFamilies)
    return tr("a training setup needs 1 to %1 families (it has %2)")
        .arg(kMaxFamilies)
        .arg(spec.families.size());
  for (const auto& f : spec.families)
    if (families_->findItems(QString::fromStdString(f), Qt::MatchExactly).isEmpty())
      return tr("unknown family '%1'").arg(QString::fromStdString(f));
  return controlsProblem(spec);
}

QString TrainingPanel::controlsProblem(const poslab::ExperimentSpec& spec,
                                       const QString& prefix) const {
  const TrainConfig& c = spec.base;
  const QString config = prefix + QStringLiteral("config.");
  auto outside = [](const QString& field, const QString& value, double lo, double hi) {
    return tr("field '%1' = %2 is outside the training panel's range [%3, %4]")
        .arg(field, value)
        .arg(lo)
        .arg(hi);
  };
  auto integer = [&](const QSpinBox* box, const QString& field, long long v) -> QString {
    if (v >= box->minimum() && v <= box->maximum()) return {};
    return outside(field, QString::number(v), box->minimum(), box->maximum());
  };
  auto real = [&](const QDoubleSpinBox* box, const QString& field, double v) -> QString {
    const QString text = QString::number(v, 'g', QLocale::FloatingPointShortest);
    if (!(v >= box->minimum() && v <= box->maximum()))
      return outside(field, text, box->minimum(), box->maximum());
    // What QDoubleSpinBox::setValue keeps of it.
    if (QString::number(v, 'f', box->decimals()).toDouble() != v)
      return tr("field '%1' = %2 has more digits than the training panel keeps (%3 decimals)")
          .arg(field, text)
          .arg(box->decimals());
    return {};
  };
  const uint64_t seed = spec.seeds.empty() ? c.run.seed : spec.seeds.front();
  for (const QString& problem : {
           integer(steps_, config + "run.steps", c.run.steps),
           seed > static_cast<uint64_t>(seed_->maximum())
               ? outside(prefix + (spec.seeds.empty() ? "config.run.seed" : "seeds"),
                         QString::number(seed), seed_->minimum(), seed_->maximum())
               : QString(),
           integer(trainLength_, config + "task.train_length", c.task.trainLength),
           integer(batch_, config + "optim.batch", c.optim.batch),
           real(lr_, config + "optim.lr", c.optim.lr),
           integer(dModel_, config + "model.d_model", c.model.dModel),
           integer(heads_, config + "model.heads", c.model.heads),
           integer(layers_, config + "model.layers", c.model.layers),
           real(positionLrScale_, config + "optim.position_lr_scale", c.optim.positionLrScale),
           integer(evalEvery_, config + "run.eval_every", c.run.evalEvery),
           integer(evalSequences_, config + "run.eval_sequences", c.run.evalSequences),
       })
    if (!problem.isEmpty()) return problem;
  // The task's options as its form shows them: integers in spin boxes, switches as check boxes
  // (real options are text fields and keep any number).
  const auto specs = taskOptionSpecs(c.task);
  for (const auto& [name, value] : c.task.options) {
    const QString field = config + "task.options." + QString::fromStdString(name);
    auto it = std::find_if(specs.begin(), specs.end(),
                           [&](const TaskOptionSpec& o) { return o.name == name; });
    if (it == specs.end())
      return tr("field '%1': task %2 has no option '%3' the training panel can show")
          .arg(field, QString::fromStdString(c.task.id), QString::fromStdString(name));
    if (!it->integer) continue;
    const QString text = QString::number(value, 'g', QLocale::FloatingPointShortest);
    if (it->min == 0 && it->max == 1 && value != 0 && value != 1)
      return tr("field '%1' = %2 is a switch: 0 or 1").arg(field, text);
    const double lo = std::max<double>(it->min, INT_MIN), hi = std::min<double>(it->max, INT_MAX);
    if (!(value >= lo && value <= hi)) return outside(field, text, lo, hi);
    if (value != std::floor(value)) return tr("field '%1' = %2 is not an integer").arg(field, text);
  }
  return {};
}

bool TrainingPanel::setExperiment(const poslab::ExperimentSpec& spec, QString* error) {
  const QString problem = experimentProblem(spec);
  if (!problem.isEmpty()) {
    *error = problem;
    return false;
  }
  clearRuns();
  clearCurves();
  loadControls(spec);
  stepLabel_->setText(tr("step 0"));
  setStatus(spec.name.empty()
                ? QString()
                : tr("loaded '%1': press Play").arg(QString::fromStdString(spec.name)));
  return true;
}

void TrainingPanel::loadControls(const poslab::ExperimentSpec& spec) {
  setup_ = spec;
  const TrainConfig& c = spec.base;
  task_->setCurrentText(QString::fromStdString(c.task.id));
  selectFamilies(spec.families);
  steps_->setValue(static_cast<int>(c.run.steps));
  lr_->setValue(c.optim.lr);
  seed_->setValue(static_cast<int>(spec.seeds.empty() ? c.run.seed : spec.seeds.front()));
  trainLength_->setValue(static_cast<int>(c.task.trainLength));
  batch_->setValue(static_cast<int>(c.optim.batch));
  dModel_->setValue(static_cast<int>(c.model.dModel));
  heads_->setValue(static_cast<int>(c.model.heads));
  layers_->setValue(static_cast<int>(c.model.layers));
  positionLrScale_->setValue(c.optim.positionLrScale);
  evalEvery_->setValue(static_cast<int>(c.run.evalEvery));
  evalSequences_->setValue(static_cast<int>(c.run.evalSequences));
  onTaskChanged();  // the setup's options (the task combo may not have changed)
  QStringList lengths;
  for (long long l : c.run.evalLengths) lengths << QString::number(l);
  evalLengths_->setText(lengths.join(','));
}

poslab::ExperimentSpec TrainingPanel::runningExperiment() const {
  return runs_.empty() ? experiment() : running_;
}

std::vector<TrainingRunSpec> TrainingPanel::specsFromControls(QString* error) const {
  std::vector<long long> lengths;
  if (!parseLengths(evalLengths_->text(), lengths)) {
    *error = tr("eval lengths '%1' is not a list of positive integers (e.g. 64,256,1024)")
                 .arg(evalLengths_->text());
    return {};
  }
  {
    TaskConfig t;
    if (!taskOptions_->write(t, error)) return {};
  }
  const poslab::ExperimentSpec e = experiment();
  if (e.families.empty() || e.families.size() > kMaxFamilies) {
    *error = tr("check 1 to %1 families (%2 checked)").arg(kMaxFamilies).arg(e.families.size());
    return {};
  }
  // One run per family, planned as the CLI plans them: this tab trains one seed (its control) and
  // the task its controls show (a preset's first variant is already applied to it).
  poslab::ExperimentSpec shown = e;
  shown.seeds = {e.base.run.seed};
  shown.variants.clear();
  std::vector<TrainingRunSpec> specs;
  for (const poslab::PlannedRun& p : poslab::planExperiment(shown)) {
    TrainingRunSpec s;
    s.config = p.config;
    specs.push_back(s);
  }
  return specs;
}

bool TrainingPanel::ensureRuns() {
  QString error;
  const std::vector<TrainingRunSpec> specs = specsFromControls(&error);
  if (specs.empty()) {
    setStatus(error);
    return false;
  }
  bool same = specs.size() == runs_.size();
  for (size_t i = 0; same && i < specs.size(); ++i) same = runs_[i]->spec() == specs[i];
  if (same) return true;
  clearRuns();
  clearCurves();
  try {
    for (size_t i = 0; i < specs.size(); ++i) {
      auto run = std::make_unique<TrainingRun>(static_cast<int>(i), specs[i]);
      connectRun(run.get());
      runs_.push_back(std::move(run));
    }
  } catch (const std::exception& e) {
    clearRuns();
    setStatus(tr("cannot start training: %1").arg(QString::fromUtf8(e.what())));
    return false;
  }
  running_ = experiment();  // what specsFromControls built the runs from
  showNewRuns(specs);
  setStatus(tr("%1 run(s) on %2, seed %3: identical batches")
                .arg(runs_.size())
                .arg(QString::fromStdString(specs.front().config.task.id))
                .arg(specs.front().config.run.seed));
  return true;
}

void TrainingPanel::connectRun(TrainingRun* run) {
  const int generation = generation_;
  // A step in flight when clearRuns() joined the old workers still emits its snapshot; it must
  // not land on the new runs (their step, curves and diverged state).
  connect(
      run, &TrainingRun::snapshot, this,
      [this, generation](int index, const poslab::Snapshot& s) {
        if (generation != generation_) return;
        onSnapshot(index, s);
      },
      Qt::QueuedConnection);
  connect(
      run, &TrainingRun::attentionReady, this,
      [this, generation](int index, const TrainingAttention& a) {
        if (generation != generation_) return;  // an answer from runs since replaced
        attentionInFlight_ = false;
        if (index == attentionView_->run()) attentionView_->showAttention(a);
        if (attentionPending_) sendAttentionRequest();
      },
      Qt::QueuedConnection);
  connect(
      run, &TrainingRun::samplesReady, this,
      [this, generation](int index, const TrainingSamples& samples) {
        if (generation != generation_) return;
        samplesInFlight_ = false;
        if (index == sampleView_->run()) sampleView_->showSamples(samples);
        if (samplesPending_) sendSamplesRequest();
      },
      Qt::QueuedConnection);
  connect(
      run, &TrainingRun::lagResponseReady, this,
      [this, generation](int index, const TrainingLagResponse& r) {
        if (generation != generation_) return;
        lagResponseInFlight_ = false;
        // Only the answer to what the view still asks for (run and probe length).
        if (index == lagResponseView_->run() &&
            (!r.error.isEmpty() || r.response.length == lagResponseView_->length()))
          lagResponseView_->showResponse(r);
        if (lagResponsePending_) sendLagResponseRequest();
      },
      Qt::QueuedConnection);
  connect(
      run, &TrainingRun::checkpointSaved, this,
      [this, generation](int index, const QString& path, long long step, const QString& error) {
        if (generation != generation_) return;  // clearRuns already answered that save
        onCheckpointSaved(index, path, step, error);
      },
      Qt::QueuedConnection);
}

void TrainingPanel::showNewRuns(const std::vector<TrainingRunSpec>& specs) {
  states_.assign(runs_.size(), RunState{});
  lastEval_.assign(runs_.size(), {});
  lastSnapshot_.assign(runs_.size(), Snapshot{});
  QStringList families;
  for (const auto& spec : specs) families << QString::fromStdString(spec.config.model.family);
  positionView_->setRuns(families);
  attentionView_->setRuns(families);
  sampleView_->setRuns(families);
  std::vector<poslab::TrainConfig> configs;
  for (const auto& spec : specs) configs.push_back(spec.config);
  lagResponseView_->setRuns(configs);
  for (size_t i = 0; i < runs_.size(); ++i) {
    const QString name = QString::fromStdString(specs[i].config.model.family);
    const QPen pen(seriesColor(static_cast<int>(i)), 1.5);
    Curves c;
    c.loss = lossPlot_->addGraph();
    c.accuracy = accuracyPlot_->addGraph();
    c.eval = evalPlot_->addGraph();
    for (QCPGraph* g : {c.loss, c.accuracy, c.eval}) {
      g->setName(name);
      g->setPen(pen);
    }
    c.eval->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 6));
    curves_.push_back(c);
  }
}

bool TrainingPanel::saveCheckpoints(const QStringList& paths, CheckpointsSaved done,
                                    QString* error) {
  if (runs_.empty()) {
    *error = tr("nothing has been trained yet: press Play or Step in the training tab first");
    return false;
  }
  if (paths.size() != static_cast<qsizetype>(runs_.size())) {
    *error = tr("%1 checkpoint paths for %2 runs").arg(paths.size()).arg(runs_.size());
    return false;
  }
  if (pendingSave_) {
    *error = tr("the checkpoints of an earlier save are still being written; try again shortly");
    return false;
  }
  auto pending = std::make_unique<PendingSave>();
  pending->generation = generation_;
  pending->done = std::move(done);
  pendingSave_ = std::move(pending);
  for (size_t i = 0; i < runs_.size(); ++i) {
    ++pendingSave_->remaining;
    if (!runs_[i]->saveCheckpoint(paths[static_cast<qsizetype>(i)])) {
      --pendingSave_->remaining;
      if (pendingSave_->error.isEmpty())
        pendingSave_->error = tr("cannot save checkpoint %1: the run has stopped")
                                  .arg(paths[static_cast<qsizetype>(i)]);
    }
  }
  setStatus(tr("saving %1 checkpoint(s)…").arg(runs_.size()));
  if (pendingSave_->remaining == 0) failPendingSave(pendingSave_->error);
  return true;
}

void TrainingPanel::onCheckpointSaved(int index, const QString& path, long long step,
                                      const QString& error) {
  if (!pendingSave_ || pendingSave_->generation != generation_) return;
  PendingSave& p = *pendingSave_;
  if (!error.isEmpty()) {
    if (p.error.isEmpty()) p.error = error;
  } else {
    SavedCheckpoint c;
    c.run = index;
    c.family = runFamily(index);
    c.path = path;
    c.step = step;
    p.saved.push_back(c);
  }
  if (--p.remaining > 0) return;
  std::sort(p.saved.begin(), p.saved.end(),
            [](const SavedCheckpoint& a, const SavedCheckpoint& b) { return a.run < b.run; });
  std::unique_ptr<PendingSave> finished = std::move(pendingSave_);
  setStatus(finished->error.isEmpty() ? tr("saved %1 checkpoint(s)").arg(finished->saved.size())
                                      : finished->error);
  if (finished->done) finished->done(finished->saved, finished->error);
}

void TrainingPanel::failPendingSave(const QString& error) {
  if (!pendingSave_) return;
  std::unique_ptr<PendingSave> failed = std::move(pendingSave_);
  if (failed->done) failed->done({}, error);
}

bool TrainingPanel::setExperimentWithCheckpoints(const poslab::ExperimentSpec& spec,
                                                 const QStringList& checkpoints, QString* error) {
  const QString problem = experimentProblem(spec);
  if (!problem.isEmpty()) {
    *error = problem;
    return false;
  }
  if (checkpoints.size() != static_cast<qsizetype>(spec.families.size())) {
    *error = tr("the setup trains %1 families but %2 checkpoints were given")
                 .arg(spec.families.size())
                 .arg(checkpoints.size());
    return false;
  }
  // Everything that can fail happens before the runs change: load each file, check its config.
  std::vector<std::unique_ptr<TrainedModel>> models;
  for (const QString& path : checkpoints) {
    try {
      models.push_back(TrainedModel::load(path.toStdString()));
    } catch (const std::exception& e) {
      *error = QString::fromUtf8(e.what());  // core's message names the file
      return false;
    }
  }
  // Each checkpoint must match the config its run will actually get: the setup as the controls
  // hold it (specsFromControls after loading). The controls go back if anything is refused.
  const poslab::ExperimentSpec before = experiment(), beforeSetup = setup_;
  const QString beforeLengths = evalLengths_->text();
  auto refuse = [&](const QString& why) {
    loadControls(before);
    setup_ = beforeSetup;
    evalLengths_->setText(beforeLengths);
    *error = why;
    return false;
  };
  loadControls(spec);
  QString specError;
  const std::vector<TrainingRunSpec> specs = specsFromControls(&specError);
  if (specs.size() != models.size())
    return refuse(tr("the loaded setup cannot run: %1")
                      .arg(specError.isEmpty() ? tr("a family is listed twice") : specError));
  // Runs follow the family list's order; the checkpoints come in spec.families' order.
  std::vector<std::unique_ptr<TrainedModel>> ordered(specs.size());
  for (size_t r = 0; r < specs.size(); ++r) {
    const std::string& family = specs[r].config.model.family;
    const size_t at = static_cast<size_t>(
        std::find(spec.families.begin(), spec.families.end(), family) - spec.families.begin());
    if (at >= models.size() || !models[at])
      return refuse(tr("no checkpoint for the %1 run").arg(QString::fromStdString(family)));
    const QString& path = checkpoints[static_cast<qsizetype>(at)];
    const QString mismatch = trainConfigMismatch(specs[r].config, models[at]->config());
    if (!mismatch.isEmpty())
      return refuse(
          tr("checkpoint %1 was not trained with this setup's %2 run: %3")
              .arg(QDir::toNativeSeparators(path), QString::fromStdString(family), mismatch));
    ordered[r] = std::move(models[at]);
  }
  clearRuns();
  clearCurves();
  stepLabel_->setText(tr("step 0"));
  try {
    for (size_t i = 0; i < specs.size(); ++i) {
      auto run =
          std::make_unique<TrainingRun>(static_cast<int>(i), specs[i], std::move(ordered[i]));
      connectRun(run.get());
      runs_.push_back(std::move(run));
    }
  } catch (const std::exception& e) {
    clearRuns();
    *error = tr("cannot start training: %1").arg(QString::fromUtf8(e.what()));
    return false;
  }
  running_ = experiment();
  showNewRuns(specs);
  QStringList at;
  for (size_t i = 0; i < runs_.size(); ++i) {
    const long long step = runs_[i]->stepCount();
    states_[i].step = step;
    states_[i].finished = step >= specs[i].config.run.steps;
    at << tr("%1 at step %2").arg(QString::fromStdString(specs[i].config.model.family)).arg(step);
  }
  stepLabel_->setText(tr("step %1").arg(stepCount()));
  updateRunState();
  requestInspection();       // the trained model's maps and samples
  sendLagResponseRequest();  // and what it learned lag by lag (kernel-lm, sector-teacher)
  setStatus(tr("loaded trained models (%1): press Play to continue").arg(at.join(", ")));
  return true;
}

void TrainingPanel::clearRuns() {
  // Ask every worker to stop first, then join them: the steps in flight end together, so the
  // UI waits for the longest one rather than for their sum.
  for (auto& run : runs_) run->requestStop();
  runs_.clear();  // each destructor joins its worker
  ++generation_;  // answers still queued from those runs are dropped
  failPendingSave(tr("the runs were replaced before their checkpoints were saved"));
  attentionInFlight_ = attentionPending_ = samplesInFlight_ = samplesPending_ = false;
  lagResponseInFlight_ = lagResponsePending_ = false;
  states_.clear();
  lastEval_.clear();
  lastSnapshot_.clear();
  if (positionView_) {
    positionView_->setRuns({});
    attentionView_->setRuns({});
    sampleView_->setRuns({});
    lagResponseView_->setRuns({});
  }
  if (runState_) runState_->setText(tr("not started"));
}

void TrainingPanel::clearCurves() {
  for (QCustomPlot* p : {lossPlot_, accuracyPlot_, evalPlot_}) {
    p->clearGraphs();
    p->replot();
  }
  curves_.clear();
}

void TrainingPanel::play() {
  if (!ensureRuns()) return;
  QStringList diverged, finished;
  for (size_t i = 0; i < runs_.size(); ++i) {
    const QString family = QString::fromStdString(runs_[i]->spec().config.model.family);
    // A diverged run would fail the same step again (same weights, same batch); a finished one
    // would not step at all, and its worker sends no snapshot to say so.
    if (states_[i].diverged)
      diverged << family;
    else if (states_[i].finished)
      finished << family;
    else
      runs_[i]->play();
  }
  QStringList messages;
  if (!diverged.isEmpty())
    messages
        << tr("%1 diverged and stays paused: press Reset to start again").arg(diverged.join(", "));
  if (!finished.isEmpty())
    messages << tr("%1 finished: press Reset to train again").arg(finished.join(", "));
  if (!messages.isEmpty()) setStatus(messages.join(QStringLiteral("; ")));
  updateRunState();
}

void TrainingPanel::pause() {
  for (auto& r : runs_) r->pause();
  updateRunState();
  requestInspection();  // queued behind the step in flight: the paused model
}

void TrainingPanel::stepOnce() {
  if (!ensureRuns()) return;
  for (size_t i = 0; i < runs_.size(); ++i)
    if (!states_[i].diverged) runs_[i]->stepOnce();
  updateRunState();  // maps and samples follow the step's snapshot (onSnapshot)
}

void TrainingPanel::reset() {
  for (auto& r : runs_) r->reset();
  for (auto& s : states_) s = RunState{};
  for (auto& e : lastEval_) e.clear();
  for (auto& s : lastSnapshot_) s = Snapshot{};
  for (const Curves& c : curves_)
    for (QCPGraph* g : {c.loss, c.accuracy, c.eval}) g->data()->clear();
  stepLabel_->setText(tr("step 0"));
  positionView_->clearHistory();
  lagResponseView_->clearResponse();
  updateRunState();
  replot();
}

void TrainingPanel::onSnapshot(int index, const poslab::Snapshot& s) {
  if (index < 0 || index >= static_cast<int>(curves_.size())) return;  // a run since removed
  const size_t i = static_cast<size_t>(index);
  const Curves& c = curves_[i];
  const QString family = QString::fromStdString(runs_[i]->spec().config.model.family);
  bool inspect = false;  // refresh the maps and samples after this snapshot
  const bool wasFinished = states_[i].finished;
  if (s.event == SnapshotEvent::Reset) {
    for (QCPGraph* g : {c.loss, c.accuracy, c.eval}) g->data()->clear();
    states_[i] = RunState{};
    lastSnapshot_[i] = Snapshot{};
    positionView_->addSnapshot(index, s);  // the fresh model's parameters at step 0
    inspect = true;
  } else if (s.event == SnapshotEvent::Diverged) {
    // The worker paused itself and left the weights as before the failed step.
    states_[i].finished = states_[i].diverged = true;
    setStatus(tr("%1 paused itself: %2").arg(family, QString::fromStdString(s.message)));
    inspect = true;
  } else {
    if (s.step > 0) {
      states_[i].step = s.step;
      lastSnapshot_[i] = s;
      positionView_->addSnapshot(index, s);
      if (std::isfinite(s.loss)) c.loss->addData(static_cast<double>(s.step), s.loss);
      if (std::isfinite(s.accuracy)) c.accuracy->addData(static_cast<double>(s.step), s.accuracy);
    }
    // The last step: the run will not step again.
    if (s.event == SnapshotEvent::Finished ||
        (s.step > 0 && s.step >= runs_[i]->spec().config.run.steps))
      states_[i].finished = true;
    if (!s.message.empty())
      setStatus(QStringLiteral("%1: %2").arg(family, QString::fromStdString(s.message)));
    // After an evaluation, the last step, or a step while paused (Step, or the one in flight at
    // Pause): the model the user is looking at changed.
    inspect = !s.eval.empty() || states_[i].finished || (s.step > 0 && !runs_[i]->isPlaying());
  }
  if (!s.eval.empty()) lastEval_[i] = s.eval;
  // The eval curve shows the latest evaluation in the chosen metric.
  const bool accuracy = evalMetric_->currentIndex() == 0;
  QVector<double> lengths, values;
  for (const EvalResult& e : lastEval_[i]) {
    const double v = accuracy ? e.accuracy : e.loss;
    if (!std::isfinite(v)) continue;
    lengths.push_back(static_cast<double>(e.length));
    values.push_back(v);
  }
  c.eval->setData(lengths, values, true);
  stepLabel_->setText(tr("step %1").arg(stepCount()));
  updateRunState();
  if (inspect) requestInspection();
  // The learned kernel once the run is done (not after divergence: the weights are the last good
  // ones, but the user is looking at the failure).
  if (!wasFinished && states_[i].finished && !states_[i].diverged &&
      index == lagResponseView_->run())
    sendLagResponseRequest();
  if (!replotTimer_.isActive()) replotTimer_.start();
  Q_EMIT snapshotShown();
}

void TrainingPanel::replot() {
  positionView_->replot();
  for (QCustomPlot* p : {lossPlot_, accuracyPlot_, evalPlot_}) {
    p->rescaleAxes();
    p->yAxis->scaleRange(1.1);
    if (p == evalPlot_) p->xAxis->scaleRange(1.2);  // end points off the frame (log axis)
    p->replot();
  }
}

QString TrainingPanel::runStateText() const {
  return runState_->text();
}

void TrainingPanel::updateRunState() {
  if (runs_.empty()) {
    runState_->setText(tr("not started"));
    return;
  }
  QStringList each;
  for (size_t i = 0; i < runs_.size(); ++i) {
    const RunState& st = states_[i];
    if (st.diverged)
      each << tr("diverged at step %1, paused").arg(st.step);
    else if (runs_[i]->isPlaying())
      each << tr("playing");
    else if (st.finished)
      each << tr("finished");
    else
      each << tr("paused");
  }
  if (each.count(each.front()) == each.size()) {
    runState_->setText(each.front());
    return;
  }
  QStringList parts;
  for (size_t i = 0; i < runs_.size(); ++i)
    parts << QStringLiteral("%1: %2").arg(
        QString::fromStdString(runs_[i]->spec().config.model.family), each[static_cast<int>(i)]);
  runState_->setText(parts.join(QStringLiteral(" · ")));
}

long long TrainingPanel::modelHeadDim() const {
  return std::max(1, dModel_->value() / std::max(1, heads_->value()));
}

void TrainingPanel::onTaskChanged() {
  const std::string id = task_->currentText().toStdString();
  TaskConfig t;
  if (id == setup_.base.task.id) {
    t = setup_.base.task;
  } else {
    t.id = id;
    const auto kernels = taskKernelChoices(id);
    if (!kernels.empty()) t.kernel = kernels.front();  // mixed_raw / phase, as the CLI
  }
  t.trainLength = trainLength_->value();
  t.headDim = modelHeadDim();  // as the trainer does: kernel-lm's omega follows the head size
  taskOptions_->setConfig(t);
}

void TrainingPanel::updateSampleLengths() {
  // The train length and the evaluation lengths: maps show what the model does beyond training.
  // The worker materialises (layers, H, T, T) weights, so lengths stop at kMaxAttentionLength.
  std::vector<long long> lengths{std::min<long long>(trainLength_->value(), kMaxAttentionLength)};
  std::vector<long long> evals;
  if (parseLengths(evalLengths_->text(), evals))
    for (long long l : evals)
      if (l <= kMaxAttentionLength) lengths.push_back(l);
  attentionView_->setLengths(lengths);
}

void TrainingPanel::requestInspection() {
  sendAttentionRequest();
  sendSamplesRequest();
}

void TrainingPanel::sendAttentionRequest() {
  const int i = attentionView_->run();
  if (i < 0 || i >= static_cast<int>(runs_.size())) return;
  if (attentionInFlight_) {  // one at a time: the answer sends the next
    attentionPending_ = true;
    return;
  }
  attentionInFlight_ = true;
  attentionPending_ = false;
  runs_[static_cast<size_t>(i)]->requestAttention(attentionView_->length(),
                                                  ModelAttentionView::kMaxSide);
}

void TrainingPanel::sendSamplesRequest() {
  const int i = sampleView_->run();
  if (i < 0 || i >= static_cast<int>(runs_.size())) return;
  if (samplesInFlight_) {
    samplesPending_ = true;
    return;
  }
  samplesInFlight_ = true;
  samplesPending_ = false;
  runs_[static_cast<size_t>(i)]->requestSamples(
      SampleView::kExamples, runs_[static_cast<size_t>(i)]->spec().config.task.trainLength);
}

void TrainingPanel::sendLagResponseRequest() {
  const int i = lagResponseView_->run();
  if (i < 0 || i >= static_cast<int>(runs_.size()) || !lagResponseView_->measurable()) return;
  lagResponseView_->setMeasuring();
  if (lagResponseInFlight_) {
    lagResponsePending_ = true;
    return;
  }
  lagResponseInFlight_ = true;
  lagResponsePending_ = false;
  runs_[static_cast<size_t>(i)]->requestLagResponse(lagResponseView_->length(),
                                                    LagResponseView::kSamples);
}

void TrainingPanel::setStatus(const QString& text) {
  status_->setText(text);
  Q_EMIT statusMessage(text);
}

}  // namespace poslab::ui
