#include "training/training_panel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <exception>

#include "bridge/catalog.h"
#include "plot_style.h"

namespace poslab::ui {

namespace {
constexpr int kReplotMs = 40;  // snapshots can arrive every few ms; the eye needs ~25 Hz

QCustomPlot* makePlot(QWidget* parent, const QString& name, const QString& x, const QString& y) {
  auto* plot = new QCustomPlot(parent);
  plot->setObjectName(name);
  stylePlot(plot, x, y);
  plot->setMinimumSize(300, 180);
  placeLegendTop(plot);
  return plot;
}

// "64, 256,1024" -> {64, 256, 1024}; false on anything else.
bool parseLengths(const QString& text, std::vector<long long>& out) {
  out.clear();
  for (const QString& part : text.split(',', Qt::SkipEmptyParts)) {
    bool ok = false;
    const long long v = part.trimmed().toLongLong(&ok);
    if (!ok || v <= 0) return false;
    out.push_back(v);
  }
  return !out.empty();
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

  auto* controls = new QWidget(split);
  auto* form = new QFormLayout(controls);
  task_ = new QComboBox(controls);
  task_->setObjectName("task");
  for (const auto& id : trainingTaskIds()) task_->addItem(QString::fromStdString(id));
  task_->setCurrentText("kernel-lm");
  form->addRow(tr("task"), task_);

  families_ = new QListWidget(controls);
  families_->setObjectName("trainFamilies");
  families_->setToolTip(tr("Check 1-4 families; they train on identical batches"));
  for (const auto& f : familyCatalog()) {
    auto* item = new QListWidgetItem(QString::fromStdString(f.id), families_);
    const bool on = f.id == "jordan-stabilized" || f.id == "rope";
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
  }
  form->addRow(tr("families"), families_);

  steps_ = new QSpinBox(controls);
  steps_->setObjectName("steps");
  steps_->setRange(1, 1000000);
  steps_->setValue(200);
  form->addRow(tr("steps"), steps_);
  lr_ = new QDoubleSpinBox(controls);
  lr_->setObjectName("lr");
  lr_->setDecimals(5);
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
  trainLength_->setRange(2, 65536);
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

  auto* buttons = new QHBoxLayout;
  playButton_ = new QPushButton(tr("Play"), controls);
  playButton_->setObjectName("playButton");
  pauseButton_ = new QPushButton(tr("Pause"), controls);
  pauseButton_->setObjectName("pauseButton");
  stepButton_ = new QPushButton(tr("Step"), controls);
  stepButton_->setObjectName("stepButton");
  resetButton_ = new QPushButton(tr("Reset"), controls);
  resetButton_->setObjectName("resetButton");
  for (auto* b : {playButton_, pauseButton_, stepButton_, resetButton_}) buttons->addWidget(b);
  form->addRow(buttons);
  stepLabel_ = new QLabel(tr("step 0"), controls);
  stepLabel_->setObjectName("stepLabel");
  form->addRow(stepLabel_);
  status_ = new QLabel(controls);
  status_->setObjectName("trainingStatus");
  status_->setWordWrap(true);
  form->addRow(status_);

  auto* plots = new QWidget(split);
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
  split->addWidget(controls);
  split->addWidget(plots);
  split->setStretchFactor(1, 1);

  replotTimer_.setSingleShot(true);
  replotTimer_.setInterval(kReplotMs);
  connect(&replotTimer_, &QTimer::timeout, this, &TrainingPanel::replot);
  connect(playButton_, &QPushButton::clicked, this, &TrainingPanel::play);
  connect(pauseButton_, &QPushButton::clicked, this, &TrainingPanel::pause);
  connect(stepButton_, &QPushButton::clicked, this, &TrainingPanel::stepOnce);
  connect(resetButton_, &QPushButton::clicked, this, &TrainingPanel::reset);
  connect(evalMetric_, &QComboBox::currentIndexChanged, this, [this] {
    evalPlot_->yAxis->setLabel(evalMetric_->currentText());
    for (size_t i = 0; i < runs_.size(); ++i) onSnapshot(static_cast<int>(i), Snapshot{});
  });
}

TrainingPanel::~TrainingPanel() { clearRuns(); }

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

QString TrainingPanel::statusText() const { return status_->text(); }

poslab::ExperimentSpec TrainingPanel::experiment() const {
  poslab::ExperimentSpec e = setup_;
  TrainConfig& c = e.base;
  c.task.id = task_->currentText().toStdString();
  if (c.task.id != setup_.base.task.id) {  // another task: its own defaults, not the setup's
    c.task.options.clear();
    c.task.kernel = c.task.id == "sector-teacher" ? "phase" : TaskConfig{}.kernel;  // as the CLI
    e.variants.clear();
  }
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

bool TrainingPanel::setExperiment(const poslab::ExperimentSpec& spec, QString* error) {
  if (task_->findText(QString::fromStdString(spec.base.task.id)) < 0) {
    *error = tr("unknown task '%1'").arg(QString::fromStdString(spec.base.task.id));
    return false;
  }
  if (spec.families.empty() || spec.families.size() > kMaxFamilies) {
    *error = tr("a training setup needs 1 to %1 families (it has %2)")
                 .arg(kMaxFamilies)
                 .arg(spec.families.size());
    return false;
  }
  for (const auto& f : spec.families)
    if (families_->findItems(QString::fromStdString(f), Qt::MatchExactly).isEmpty()) {
      *error = tr("unknown family '%1'").arg(QString::fromStdString(f));
      return false;
    }
  clearRuns();
  clearCurves();
  setup_ = spec;
  const TrainConfig& c = spec.base;
  task_->setCurrentText(QString::fromStdString(c.task.id));
  selectFamilies(spec.families);
  steps_->setValue(static_cast<int>(c.run.steps));
  lr_->setValue(c.optim.lr);
  seed_->setValue(static_cast<int>(spec.seeds.empty() ? c.run.seed : spec.seeds.front()));
  trainLength_->setValue(static_cast<int>(c.task.trainLength));
  batch_->setValue(static_cast<int>(c.optim.batch));
  QStringList lengths;
  for (long long l : c.run.evalLengths) lengths << QString::number(l);
  evalLengths_->setText(lengths.join(','));
  stepLabel_->setText(tr("step 0"));
  setStatus(spec.name.empty() ? QString()
                              : tr("loaded '%1': press Play").arg(QString::fromStdString(spec.name)));
  return true;
}

std::vector<TrainingRunSpec> TrainingPanel::specsFromControls(QString* error) const {
  std::vector<long long> lengths;
  if (!parseLengths(evalLengths_->text(), lengths)) {
    *error = tr("eval lengths '%1' is not a list of positive integers (e.g. 64,256,1024)")
                 .arg(evalLengths_->text());
    return {};
  }
  const poslab::ExperimentSpec e = experiment();
  if (e.families.empty() || e.families.size() > kMaxFamilies) {
    *error = tr("check 1 to %1 families (%2 checked)").arg(kMaxFamilies).arg(e.families.size());
    return {};
  }
  std::vector<TrainingRunSpec> specs;
  for (const std::string& family : e.families) {
    TrainingRunSpec s;
    s.config = e.base;
    s.config.model.family = family;
    auto fp = e.familyParams.find(family);
    if (fp != e.familyParams.end())
      for (const auto& [k, v] : fp->second) s.config.model.familyParams[k] = v;
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
      connect(run.get(), &TrainingRun::snapshot, this, &TrainingPanel::onSnapshot,
              Qt::QueuedConnection);
      runs_.push_back(std::move(run));
    }
  } catch (const std::exception& e) {
    clearRuns();
    setStatus(tr("cannot start training: %1").arg(QString::fromUtf8(e.what())));
    return false;
  }
  states_.assign(runs_.size(), RunState{});
  lastEval_.assign(runs_.size(), {});
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
  setStatus(tr("%1 run(s) on %2, seed %3: identical batches")
                .arg(runs_.size())
                .arg(QString::fromStdString(specs.front().config.task.id))
                .arg(specs.front().config.run.seed));
  return true;
}

void TrainingPanel::clearRuns() {
  runs_.clear();  // each destructor stops and joins its worker
  states_.clear();
  lastEval_.clear();
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
  for (auto& r : runs_) r->play();
}

void TrainingPanel::pause() {
  for (auto& r : runs_) r->pause();
}

void TrainingPanel::stepOnce() {
  if (!ensureRuns()) return;
  for (auto& r : runs_) r->stepOnce();
}

void TrainingPanel::reset() {
  for (auto& r : runs_) r->reset();
  for (auto& s : states_) s = RunState{};
  for (auto& e : lastEval_) e.clear();
  for (const Curves& c : curves_)
    for (QCPGraph* g : {c.loss, c.accuracy, c.eval}) g->data()->clear();
  stepLabel_->setText(tr("step 0"));
  replot();
}

void TrainingPanel::onSnapshot(int index, const poslab::Snapshot& s) {
  if (index < 0 || index >= static_cast<int>(curves_.size())) return;  // a run since removed
  const size_t i = static_cast<size_t>(index);
  const Curves& c = curves_[i];
  if (s.message == "reset") {
    for (QCPGraph* g : {c.loss, c.accuracy, c.eval}) g->data()->clear();
    states_[i] = RunState{};
  } else {
    if (s.step > 0) {
      states_[i].step = s.step;
      if (std::isfinite(s.loss)) c.loss->addData(static_cast<double>(s.step), s.loss);
      if (std::isfinite(s.accuracy)) c.accuracy->addData(static_cast<double>(s.step), s.accuracy);
    }
    const bool evalFailed = s.message.rfind("evaluation failed", 0) == 0;
    // The last step, or a divergence (the worker stops itself): the run will not step again.
    if ((s.step > 0 && s.step >= runs_[i]->spec().config.run.steps) || (!s.message.empty() && !evalFailed))
      states_[i].finished = true;
    if (!s.message.empty()) {
      setStatus(QStringLiteral("%1: %2").arg(QString::fromStdString(runs_[i]->spec().config.model.family),
                                             QString::fromStdString(s.message)));
    }
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
  if (!replotTimer_.isActive()) replotTimer_.start();
  Q_EMIT snapshotShown();
}

void TrainingPanel::replot() {
  for (QCustomPlot* p : {lossPlot_, accuracyPlot_, evalPlot_}) {
    p->rescaleAxes();
    p->yAxis->scaleRange(1.1);
    if (p == evalPlot_) p->xAxis->scaleRange(1.2);  // end points off the frame (log axis)
    p->replot();
  }
}

void TrainingPanel::setStatus(const QString& text) {
  status_->setText(text);
  Q_EMIT statusMessage(text);
}

}  // namespace poslab::ui
