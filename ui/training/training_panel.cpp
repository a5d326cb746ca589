#include "training/training_panel.h"

#include <qcustomplot.h>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>

#include "family_names.h"
#include "training/distance_accuracy_view.h"
#include "training/explorer_link_row.h"
#include "training/lag_response_view.h"
#include "training/model_attention_view.h"
#include "training/pope_usage_view.h"
#include "training/position_history_view.h"
#include "training/sample_view.h"
#include "training/task_options_form.h"
#include "training/training_setup_form.h"

namespace poslab::ui {

namespace {
constexpr int kReplotMs = 40;  // snapshots can arrive every few ms; the eye needs ~25 Hz
constexpr long long kMaxAttentionLength = 1024;  // as the explorer's map: weights stay tens of MB
}  // namespace

TrainingPanel::TrainingPanel(QWidget* parent)
    : QWidget(parent), controller_(std::make_unique<TrainingController>()) {
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
  form_ = new TrainingSetupForm(scroll);
  form_->setSetupTask(controller_->setup().base.task);
  scroll->setWidget(form_);
  setupArea_ = scroll;

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
  progress_ = new QLabel(left);
  progress_->setObjectName("trainingProgress");
  progress_->setWordWrap(true);
  progress_->setToolTip(
      tr("the steps left and their time at the rate since Play, or where a long "
         "evaluation is"));
  status_ = new QLabel(left);
  status_->setObjectName("trainingStatus");
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);  // messages can be copied
  leftLayout->addLayout(buttons);
  leftLayout->addLayout(stateRow);
  leftLayout->addWidget(progress_);
  explorerLink_ = new ExplorerLinkRow(left);
  leftLayout->addWidget(status_);
  leftLayout->addWidget(explorerLink_);
  leftLayout->addWidget(scroll, 1);

  viewTabs_ = new QTabWidget(split);
  viewTabs_->setObjectName("trainingViews");
  curvesView_ = new TrainingCurvesView(viewTabs_);
  positionView_ = new PositionHistoryView(viewTabs_);
  attentionView_ = new ModelAttentionView(viewTabs_);
  sampleView_ = new SampleView(viewTabs_);
  lagResponseView_ = new LagResponseView(viewTabs_);
  popeUsageView_ = new PopeUsageView(viewTabs_);
  distanceView_ = new DistanceAccuracyView(viewTabs_);
  viewTabs_->addTab(curvesView_, tr("Curves"));
  viewTabs_->addTab(positionView_, tr("Parameters"));
  viewTabs_->addTab(attentionView_, tr("Attention"));
  viewTabs_->addTab(sampleView_, tr("Samples"));
  viewTabs_->addTab(lagResponseView_, tr("Learned kernel"));
  viewTabs_->addTab(popeUsageView_, tr("Frequency usage"));
  // Last: lessons name the tabs by their place (core's lessonTrainingViews).
  viewTabs_->addTab(distanceView_, tr("Key distance"));
  // Short titles, so that every tab shows at the window's default size; the tips say more.
  viewTabs_->setTabToolTip(viewTabs_->indexOf(positionView_),
                           tr("The learned position parameters (γ, η, gates, …) against the step"));
  viewTabs_->setTabToolTip(viewTabs_->indexOf(distanceView_),
                           tr("kv-retrieval: accuracy against the key distance d at each "
                              "evaluation length"));
  // The controls scroll vertically only: wide enough for the button row, never cut.
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setMinimumWidth(form_->minimumSizeHint().width() +
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
  connect(form_, &TrainingSetupForm::sampleLengthsChanged, this,
          &TrainingPanel::updateSampleLengths);
  connect(attentionView_, &ModelAttentionView::requestChanged, this,
          &TrainingPanel::sendAttentionRequest);
  connect(sampleView_, &SampleView::requestChanged, this, &TrainingPanel::sendSamplesRequest);
  connect(lagResponseView_, &LagResponseView::measureRequested, this,
          &TrainingPanel::sendLagResponseRequest);
  connect(popeUsageView_, &PopeUsageView::measureRequested, this,
          &TrainingPanel::sendPopeUsageRequest);
  updateSampleLengths();
  connect(curvesView_, &TrainingCurvesView::metricChanged, this, [this] {
    for (int i = 0; i < runCount(); ++i) curvesView_->showEvaluation(i, latestEval(i));
    if (!replotTimer_.isActive()) replotTimer_.start();
  });

  TrainingController* c = controller_.get();
  connect(c, &TrainingController::statusChanged, this, &TrainingPanel::showStatus);
  connect(c, &TrainingController::runsCleared, this, &TrainingPanel::clearViews);
  connect(c, &TrainingController::runsStarted, this, &TrainingPanel::showNewRuns);
  connect(c, &TrainingController::runsReset, this, [this] {
    curvesView_->clearAllData();
    positionView_->clearHistory();
    lagResponseView_->clearResponse();
    popeUsageView_->clearUsage();
    distanceView_->clearAllData();
    replot();
  });
  connect(c, &TrainingController::runStateChanged, this,
          [this] { runState_->setText(controller_->runStateText()); });
  connect(c, &TrainingController::stepChanged, this,
          [this](long long step) { stepLabel_->setText(tr("step %1").arg(step)); });
  connect(c, &TrainingController::progressChanged, progress_, &QLabel::setText);
  connect(c, &TrainingController::snapshotApplied, this, &TrainingPanel::onSnapshot);
  showInspection_[kAttentionInspection] = [this](int index, const QVariant& v) {
    if (index == attentionView_->run()) attentionView_->showAttention(v.value<TrainingAttention>());
  };
  showInspection_[kSamplesInspection] = [this](int index, const QVariant& v) {
    if (index == sampleView_->run()) sampleView_->showSamples(v.value<TrainingSamples>());
  };
  showInspection_[kLagResponseInspection] = [this](int index, const QVariant& v) {
    // Only the answer to what the view still asks for (run and probe length).
    const auto r = v.value<TrainingLagResponse>();
    if (index == lagResponseView_->run() &&
        (!r.error.isEmpty() || r.response.length == lagResponseView_->length()))
      lagResponseView_->showResponse(r);
  };
  showInspection_[kPopeUsageInspection] = [this](int index, const QVariant& v) {
    // Only the answer to what the view still asks for (run and length).
    const auto u = v.value<TrainingPopeUsage>();
    if (index == popeUsageView_->run() &&
        (!u.error.isEmpty() || u.usage.length == popeUsageView_->length()))
      popeUsageView_->showUsage(u);
  };
  connect(c, &TrainingController::inspected, this, [this](int index, const InspectionResult& r) {
    if (auto show = showInspection_.find(r.kind); show != showInspection_.end())
      show->second(index, r.value);
  });
  // A waiting request goes out after the previous answer was shown: say it is measuring again.
  connect(c, &TrainingController::inspectionSent, this, [this](int index, const std::string& kind) {
    if (kind == kLagResponseInspection && index == lagResponseView_->run())
      lagResponseView_->setMeasuring();
  });
}

TrainingPanel::~TrainingPanel() {
  // The controller joins its runs; the views it would tell are about to go.
  controller_->disconnect(this);
}

TaskOptionsForm* TrainingPanel::taskOptions() const {
  return form_->taskOptions();
}

bool TrainingPanel::selectFamilies(const std::vector<std::string>& ids) {
  return form_->selectFamilies(ids);
}

QString TrainingPanel::statusText() const {
  return status_->text();
}

QString TrainingPanel::progressText() const {
  return progress_->text();
}

QString TrainingPanel::runStateText() const {
  return runState_->text();
}

poslab::ExperimentSpec TrainingPanel::experiment() const {
  return controller_->experiment(form_->settings());
}

poslab::ExperimentSpec TrainingPanel::runningExperiment() const {
  return controller_->runningExperiment(form_->settings());
}

bool TrainingPanel::setExperiment(const poslab::ExperimentSpec& spec, QString* error) {
  const QString problem = trainingSetupProblem(spec);
  if (!problem.isEmpty()) {
    *error = problem;
    return false;
  }
  controller_->stop();
  loadControls(spec);
  stepLabel_->setText(tr("step 0"));
  controller_->setStatus(
      spec.name.empty() ? QString()
                        : tr("loaded '%1': press Play").arg(QString::fromStdString(spec.name)));
  return true;
}

void TrainingPanel::loadControls(const poslab::ExperimentSpec& spec) {
  controller_->setSetup(spec);
  form_->setSetupTask(spec.base.task);
  form_->setSettings(formFromExperiment(spec));
}

bool TrainingPanel::setExperimentWithCheckpoints(const poslab::ExperimentSpec& spec,
                                                 const QStringList& checkpoints, QString* error) {
  const QString problem = trainingSetupProblem(spec);
  if (!problem.isEmpty()) {
    *error = problem;
    return false;
  }
  // The runs get the setup as the controls hold it; the controls go back if anything is refused.
  const TrainingFormSettings before = form_->settings();
  const poslab::TaskConfig beforeTask = controller_->setup().base.task;
  form_->setSetupTask(spec.base.task);
  form_->setSettings(formFromExperiment(spec));
  if (!controller_->startFromCheckpoints(spec, form_->settings(), checkpoints, error)) {
    form_->setSetupTask(beforeTask);
    form_->setSettings(before);
    return false;
  }
  requestInspection();       // the trained model's maps and samples
  sendLagResponseRequest();  // and what it learned lag by lag (kernel-lm, sector-teacher)
  sendPopeUsageRequest();    // and, for PoPE, which frequencies carry its scores
  return true;
}

void TrainingPanel::showNewRuns(const std::vector<TrainingRunSpec>& specs) {
  QStringList families, toolTips;
  // Legends and run choosers name a family short (a loaded family by its title, not its path);
  // each chooser's item gives the full path and content hash in its tool tip.
  for (const auto& spec : specs) {
    families << familyShortName(spec.config.model.family);
    toolTips << familyToolTip(spec.config.model.family);
  }
  positionView_->setRuns(families);
  attentionView_->setRuns(families, toolTips);
  sampleView_->setRuns(families, toolTips);
  std::vector<poslab::TrainConfig> configs;
  for (const auto& spec : specs) configs.push_back(spec.config);
  lagResponseView_->setRuns(configs);
  popeUsageView_->setRuns(configs);
  distanceView_->setRuns(configs);
  curvesView_->setRuns(families);
  explorerLink_->setRuns(
      families, specs.empty() ? 1 : static_cast<int>(specs.front().config.model.heads), toolTips);
}

void TrainingPanel::clearViews() {
  positionView_->setRuns({});
  attentionView_->setRuns({});
  sampleView_->setRuns({});
  lagResponseView_->setRuns({});
  popeUsageView_->setRuns({});
  distanceView_->setRuns({});
  curvesView_->setRuns({});
  explorerLink_->setRuns({}, 1);
  runState_->setText(tr("not started"));
}

void TrainingPanel::play() {
  controller_->play(form_->settings());
}

void TrainingPanel::pause() {
  controller_->pause();
  requestInspection();  // queued behind the step in flight: the paused model
}

void TrainingPanel::stepOnce() {
  controller_->stepOnce(form_->settings());  // maps and samples follow the step's snapshot
}

void TrainingPanel::reset() {
  controller_->reset();
}

void TrainingPanel::stop() {
  controller_->stop();
}

void TrainingPanel::onSnapshot(int index, const poslab::Snapshot& s, bool inspect,
                               bool finishedNow) {
  if (s.event == SnapshotEvent::Reset) {
    curvesView_->clearData(index);
    distanceView_->clearData(index);
    positionView_->addSnapshot(index, s);  // the fresh model's parameters at step 0
  } else if (s.event != SnapshotEvent::Diverged && s.step > 0) {
    positionView_->addSnapshot(index, s);
    curvesView_->addStep(index, s);
  }
  curvesView_->showEvaluation(index, latestEval(index));
  distanceView_->showEvaluation(index, latestEval(index));
  if (inspect) requestInspection();
  // The learned kernel once the run is done.
  if (finishedNow && index == lagResponseView_->run()) sendLagResponseRequest();
  if (finishedNow && index == popeUsageView_->run()) sendPopeUsageRequest();
  if (!replotTimer_.isActive()) replotTimer_.start();
}

void TrainingPanel::replot() {
  positionView_->replot();
  curvesView_->replot();
  distanceView_->replot();
}

std::vector<QCustomPlot*> TrainingPanel::plots() const {
  // Each view's plots, in the tabs' order (the samples view has none).
  std::vector<QCustomPlot*> out = curvesView_->plots();
  for (QCustomPlot* p : {positionView_->plot(), attentionView_->plot(), lagResponseView_->plot(),
                         popeUsageView_->plot(), distanceView_->plot()})
    out.push_back(p);
  return out;
}

void TrainingPanel::showStatus(const QString& text) {
  status_->setText(text);
  Q_EMIT statusMessage(text);
}

void TrainingPanel::updateSampleLengths() {
  // The train length and the evaluation lengths: maps show what the model does beyond training.
  // The worker materialises (layers, H, T, T) weights, so lengths stop at kMaxAttentionLength.
  const std::vector<long long> shown = form_->sampleLengths();
  std::vector<long long> lengths{std::min(shown.front(), kMaxAttentionLength)};
  for (size_t i = 1; i < shown.size(); ++i)
    if (shown[i] <= kMaxAttentionLength) lengths.push_back(shown[i]);
  attentionView_->setLengths(lengths);
}

void TrainingPanel::requestInspection() {
  sendAttentionRequest();
  sendSamplesRequest();
}

void TrainingPanel::sendAttentionRequest() {
  controller_->inspect(
      attentionView_->run(),
      inspectionRequest(kAttentionInspection,
                        AttentionArgs{attentionView_->length(), ModelAttentionView::kMaxSide}));
}

void TrainingPanel::sendSamplesRequest() {
  // Length 0: the run's own train length.
  controller_->inspect(
      sampleView_->run(),
      inspectionRequest(kSamplesInspection, SamplesArgs{SampleView::kExamples, 0}));
}

void TrainingPanel::sendLagResponseRequest() {
  const int i = lagResponseView_->run();
  if (i < 0 || i >= runCount() || !lagResponseView_->measurable()) return;
  lagResponseView_->setMeasuring();
  controller_->inspect(
      i, inspectionRequest(kLagResponseInspection,
                           LagResponseArgs{lagResponseView_->length(), LagResponseView::kSamples}));
}

void TrainingPanel::sendPopeUsageRequest() {
  const int i = popeUsageView_->run();
  if (i < 0 || i >= runCount() || !popeUsageView_->measurable()) return;
  popeUsageView_->setMeasuring();
  controller_->inspect(
      i, inspectionRequest(kPopeUsageInspection,
                           PopeUsageArgs{popeUsageView_->length(), PopeUsageView::kSequences}));
}

}  // namespace poslab::ui
