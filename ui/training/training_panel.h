// The live training tab: a task with its options, the model size, 1-4 families trained side by
// side on identical batches (same seed), Play / Pause / Step / Reset. On the right, tabs: loss and
// accuracy per step on shared axes with the evaluation-length curve (train short, test long); the
// learned position parameters against the step; the trained model's attention maps on a sample
// input; the model's answers on a few sample inputs; the learned kernel; the PoPE frequency usage;
// for kv-retrieval, accuracy against the key distance. A run that diverges pauses itself and the
// panel says which step and why.
//
// The panel lays out and connects three parts: the setup form (training_setup_form.h, its values
// as TrainingFormSettings), the widget-free run controller (training_controller.h: the runs, their
// state, inspection requests, checkpoints) and the views (training_curves_view.h and the four
// inspection views). Its methods below are the tab's interface to the window, sessions, menus
// and tests.
#pragma once

#include <QStringList>
#include <QTimer>
#include <QWidget>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "training/training_controller.h"
#include "training/training_curves_view.h"

class QCustomPlot;
class QLabel;
class QPushButton;
class QTabWidget;

namespace poslab::ui {

class DistanceAccuracyView;
class ExplorerLinkRow;
class LagResponseView;
class PopeUsageView;
class ModelAttentionView;
class PositionHistoryView;
class SampleView;
class TaskOptionsForm;
class TrainingSetupForm;

class TrainingPanel : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kMaxFamilies = kMaxTrainingFamilies;

  explicit TrainingPanel(QWidget* parent = nullptr);
  ~TrainingPanel() override;

  // The smallest step any run has reported (0 before the first step and after reset).
  long long stepCount() const { return controller_->stepCount(); }
  // Steps run `index` has reported. After Pause, runs may stand one step apart: each finishes
  // the step it was in.
  long long runStep(int index) const { return controller_->runStep(index); }
  int runCount() const { return controller_->runCount(); }
  bool isPlaying() const { return controller_->isPlaying(); }
  // True when every run has reached its last step (or stopped on divergence).
  bool allFinished() const { return controller_->allFinished(); }
  // The first run that could not be built on its thread ("family: why"); empty when none.
  QString runFailure() const { return controller_->runFailure(); }
  // Checks exactly these families (ids), unchecking the rest; false for an unknown id.
  bool selectFamilies(const std::vector<std::string>& ids);
  QString statusText() const;
  // "playing", "paused", "finished" or "diverged at step N" (per family when the runs differ).
  QString runStateText() const;
  // The controller's progressText(): steps left and their ETA while playing, or where a long
  // evaluation is; empty otherwise.
  QString progressText() const;
  // The runs themselves (tests inject faults through TrainingRun::setParameterValue).
  TrainingRun* run(int index) const { return controller_->run(index); }
  // The latest snapshot with a step of run `index` (step 0 before the first).
  const poslab::Snapshot& lastSnapshot(int index) const { return controller_->lastSnapshot(index); }
  QTabWidget* viewTabs() const { return viewTabs_; }
  PositionHistoryView* positionView() const { return positionView_; }
  ModelAttentionView* attentionView() const { return attentionView_; }
  SampleView* sampleView() const { return sampleView_; }
  LagResponseView* lagResponseView() const { return lagResponseView_; }
  PopeUsageView* popeUsageView() const { return popeUsageView_; }
  DistanceAccuracyView* distanceView() const { return distanceView_; }
  TrainingSetupForm* setupForm() const { return form_; }
  // Which run's learned values "Show in explorer" takes, and from which heads.
  ExplorerLinkRow* explorerLink() const { return explorerLink_; }
  // The scroll area around the setup form (presentation mode folds it away; the buttons stay).
  QWidget* setupArea() const { return setupArea_; }
  TaskOptionsForm* taskOptions() const;
  TrainingController* controller() const { return controller_.get(); }
  // The experiment the controls describe: the last loaded setup (preset or session: model size,
  // task options, pins, ...) with the controls' task, families, steps, lr, seed, lengths and batch.
  poslab::ExperimentSpec experiment() const;
  // Loads a setup into the controls (first seed only; 1-4 families) and drops the current runs.
  // False, with the reason in *error and nothing changed, for an unknown task or family or a
  // value the controls cannot hold exactly (trainingSetupProblem, training_setup.h).
  bool setExperiment(const poslab::ExperimentSpec& spec, QString* error);
  // The setup the current runs were built from: what they train, whatever the controls say now
  // (a session saved with the trained models, the run report). experiment() without runs.
  poslab::ExperimentSpec runningExperiment() const;
  // Rescales and replots now instead of at the next coalescing tick (screenshots).
  void replot();
  // Every plot of the tab's views, in tab order (the run report's figures).
  std::vector<QCustomPlot*> plots() const;

  // Trained models. A checkpoint (core's poslab-checkpoint-1 file: config, weights, optimiser
  // state, step) continues a run exactly where it was saved.
  using SavedCheckpoint = TrainingController::SavedCheckpoint;
  using CheckpointsSaved = TrainingController::CheckpointsSaved;
  // Saves run i's checkpoint to paths[i] on the run's worker, between steps: the UI does not
  // wait and playing runs keep playing (each file holds the step its run had reached). `done` is
  // called on the UI thread once every run has answered, with error empty or the first failure
  // (naming its file); also, with an error, if the runs are replaced before they answered. False,
  // with *error and nothing started, without runs, for a wrong number of paths, or while an
  // earlier save is still in flight.
  bool saveCheckpoints(const QStringList& paths, CheckpointsSaved done, QString* error) {
    return controller_->saveCheckpoints(paths, std::move(done), error);
  }
  bool isSavingCheckpoints() const { return controller_->isSavingCheckpoints(); }
  // setExperiment, with one checkpoint per family (in spec.families' order) to continue from.
  // Every file is loaded and checked against the config its family's run gets from the setup as
  // the controls hold it (runs follow the family list's order) before the runs change: a missing,
  // unreadable or corrupt file, or one trained with another config (other family, model size, task,
  // seed, ...), is refused with *error naming the file (and the field that differs), and the panel
  // keeps its setup and runs. On success the runs stand paused at the checkpoints' steps (curves
  // start there) and Play continues from there; Reset starts again from step 0 with the same seed.
  bool setExperimentWithCheckpoints(const poslab::ExperimentSpec& spec,
                                    const QStringList& checkpoints, QString* error);
  // Reads checkpoints off the UI thread for the next setExperimentWithCheckpoints with these
  // paths (TrainingController::preloadCheckpoints); `done` gets "" or the first file's error.
  void preloadCheckpoints(const QStringList& paths, std::function<void(const QString&)> done) {
    controller_->preloadCheckpoints(paths, std::move(done));
  }
  void dropPreloadedCheckpoints() { controller_->dropPreloadedCheckpoints(); }

  using Curves = TrainingCurvesView::Curves;
  const std::vector<Curves>& curves() const { return curvesView_->curves(); }
  // Run `index`'s family id and its latest evaluation (empty before the first), for reports.
  std::string runFamily(int index) const { return controller_->runFamily(index); }
  const std::vector<poslab::EvalResult>& latestEval(int index) const {
    return controller_->latestEval(index);
  }

 public Q_SLOTS:
  // The buttons (and the Training menu): Play builds the runs from the controls when they changed
  // and plays them; Pause; Step builds them too and takes one step each; Reset takes every run back
  // to step 0 (same seed); Stop ends the runs and drops them (the controls stay; Play starts anew).
  void play();
  void pause();
  void stepOnce();
  void reset();
  void stop();

 Q_SIGNALS:
  void statusMessage(const QString& message);

 private:
  // Shows spec in the controls and makes it the setup; the runs are left alone.
  void loadControls(const poslab::ExperimentSpec& spec);
  void showNewRuns(const std::vector<TrainingRunSpec>& specs);  // the views for new runs
  void clearViews();
  void onSnapshot(int index, const poslab::Snapshot& snapshot, bool inspect, bool finishedNow);
  void showStatus(const QString& text);
  void updateSampleLengths();
  // Asks the shown runs for fresh maps and samples (non-blocking; the controller sends one
  // request of a kind at a time).
  void requestInspection();
  void sendAttentionRequest();
  void sendSamplesRequest();
  // The learned kernel costs seconds: only on Measure, when a run finishes and for loaded runs.
  void sendLagResponseRequest();
  void sendPopeUsageRequest();  // PoPE runs: each frequency's share of the score

  // A member, not a child: it is destroyed (joining its runs, silently) before the views are.
  std::unique_ptr<TrainingController> controller_;
  TrainingSetupForm* form_ = nullptr;
  QWidget* setupArea_ = nullptr;
  QLabel* runState_ = nullptr;
  QLabel* stepLabel_ = nullptr;
  QLabel* status_ = nullptr;
  QLabel* progress_ = nullptr;  // progressText()
  ExplorerLinkRow* explorerLink_ = nullptr;
  QPushButton* playButton_ = nullptr;
  QPushButton* pauseButton_ = nullptr;
  QPushButton* stepButton_ = nullptr;
  QPushButton* resetButton_ = nullptr;
  QTabWidget* viewTabs_ = nullptr;
  TrainingCurvesView* curvesView_ = nullptr;
  PositionHistoryView* positionView_ = nullptr;
  ModelAttentionView* attentionView_ = nullptr;
  SampleView* sampleView_ = nullptr;
  LagResponseView* lagResponseView_ = nullptr;
  PopeUsageView* popeUsageView_ = nullptr;
  DistanceAccuracyView* distanceView_ = nullptr;
  QTimer replotTimer_;  // coalesces snapshots: one replot per ~40 ms
  // Each inspection kind's answer (bridge/inspection.h) to the view that shows it: (run, value).
  std::map<std::string, std::function<void(int, const QVariant&)>> showInspection_;
};

}  // namespace poslab::ui
