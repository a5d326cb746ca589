// The live training tab: a task with its options, the model size, 1-4 families trained side by
// side on identical batches (same seed), Play / Pause / Step / Reset. On the right, tabs: loss and
// accuracy per step on shared axes with the evaluation-length curve (train short, test long); the
// learned position parameters against the step; the trained model's attention maps on a sample
// input; the model's answers on a few sample inputs. A run that diverges pauses itself and the
// panel says which step and why.
#pragma once

#include <QStringList>
#include <QTimer>
#include <QWidget>

#include <functional>
#include <memory>
#include <vector>

#include "bridge/worker_adapter.h"
#include "train/preset.h"  // ExperimentSpec: plain data, no torch

class QComboBox;
class QCPGraph;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;
class QTabWidget;

namespace poslab::ui {

class LagResponseView;
class ModelAttentionView;
class PositionHistoryView;
class SampleView;
class TaskOptionsForm;

class TrainingPanel : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kMaxFamilies = 4;

  explicit TrainingPanel(QWidget* parent = nullptr);
  ~TrainingPanel() override;

  // The smallest step any run has reported (0 before the first step and after reset).
  long long stepCount() const;
  // Steps run `index` has reported. After Pause, runs may stand one step apart: each finishes
  // the step it was in.
  long long runStep(int index) const { return states_.at(static_cast<size_t>(index)).step; }
  int runCount() const { return static_cast<int>(runs_.size()); }
  bool isPlaying() const;
  // True when every run has reached its last step (or stopped on divergence).
  bool allFinished() const;
  // Checks exactly these families (ids), unchecking the rest; false for an unknown id.
  bool selectFamilies(const std::vector<std::string>& ids);
  QString statusText() const;
  // "playing", "paused", "finished" or "diverged at step N" (per family when the runs differ).
  QString runStateText() const;
  // The runs themselves (tests inject faults through TrainingRun::setParameterValue).
  TrainingRun* run(int index) const { return runs_.at(static_cast<size_t>(index)).get(); }
  // The latest snapshot with a step of run `index` (step 0 before the first).
  const poslab::Snapshot& lastSnapshot(int index) const {
    return lastSnapshot_.at(static_cast<size_t>(index));
  }
  QTabWidget* viewTabs() const { return viewTabs_; }
  PositionHistoryView* positionView() const { return positionView_; }
  ModelAttentionView* attentionView() const { return attentionView_; }
  SampleView* sampleView() const { return sampleView_; }
  LagResponseView* lagResponseView() const { return lagResponseView_; }
  TaskOptionsForm* taskOptions() const { return taskOptions_; }
  // The experiment the controls describe: the last loaded setup (preset or session: model size,
  // task options, pins, ...) with the controls' task, families, steps, lr, seed, lengths and batch.
  poslab::ExperimentSpec experiment() const;
  // Loads a setup into the controls (first seed only; 1-4 families) and drops the current runs.
  // False, with the reason in *error and nothing changed, for an unknown task or family or a
  // value the controls cannot hold exactly (controlsProblem).
  bool setExperiment(const poslab::ExperimentSpec& spec, QString* error);
  // The setup the current runs were built from: what they train, whatever the controls say now
  // (a session saved with the trained models, the run report). experiment() without runs.
  poslab::ExperimentSpec runningExperiment() const;
  // Empty when the controls hold every value of `spec` they show exactly; else the first field
  // they would clamp or round ("field 'config.model.d_model' = 8192 is outside the training
  // panel's range [4, 4096]"), named as in a preset file under `prefix` ("training." in a
  // session). setExperiment refuses such a setup rather than change it silently.
  QString controlsProblem(const poslab::ExperimentSpec& spec, const QString& prefix = {}) const;
  // Rescales and replots now instead of at the next coalescing tick (screenshots).
  void replot();

  // Trained models. A checkpoint (core's poslab-checkpoint-1 file: config, weights, optimiser
  // state, step) continues a run exactly where it was saved.
  struct SavedCheckpoint {
    int run = 0;
    std::string family;
    QString path;
    long long step = 0;  // the step the file holds
  };
  using CheckpointsSaved =
      std::function<void(const std::vector<SavedCheckpoint>& saved, const QString& error)>;
  // Saves run i's checkpoint to paths[i] on the run's worker, between steps: the UI does not
  // wait and playing runs keep playing (each file holds the step its run had reached). `done` is
  // called on the UI thread once every run has answered, with error empty or the first failure
  // (naming its file); also, with an error, if the runs are replaced before they answered. False,
  // with *error and nothing started, without runs, for a wrong number of paths, or while an
  // earlier save is still in flight.
  bool saveCheckpoints(const QStringList& paths, CheckpointsSaved done, QString* error);
  bool isSavingCheckpoints() const { return pendingSave_ != nullptr; }
  // setExperiment, with one checkpoint per family (in spec.families' order) to continue from.
  // Every file is loaded and checked against the config its family's run gets from the setup as
  // the controls hold it (runs follow the family list's order) before the runs change: a missing,
  // unreadable or corrupt file, or one trained with another config (other family, model size, task,
  // seed, ...), is refused with *error naming the file (and the field that differs), and the panel
  // keeps its setup and runs. On success the runs stand paused at the checkpoints' steps (curves
  // start there) and Play continues from there; Reset starts again from step 0 with the same seed.
  bool setExperimentWithCheckpoints(const poslab::ExperimentSpec& spec,
                                    const QStringList& checkpoints, QString* error);

  struct Curves {
    QCPGraph* loss = nullptr;      // training loss vs step
    QCPGraph* accuracy = nullptr;  // training accuracy vs step
    QCPGraph* eval = nullptr;      // evaluation metric vs length (latest evaluation)
  };
  const std::vector<Curves>& curves() const { return curves_; }
  // Run `index`'s family id and its latest evaluation (empty before the first), for reports.
  std::string runFamily(int index) const {
    return runs_.at(static_cast<size_t>(index))->spec().config.model.family;
  }
  const std::vector<poslab::EvalResult>& latestEval(int index) const {
    return lastEval_.at(static_cast<size_t>(index));
  }

 public Q_SLOTS:
  void play();
  void pause();
  void stepOnce();
  void reset();

 Q_SIGNALS:
  void statusMessage(const QString& message);
  void snapshotShown();  // after a snapshot's data went into the plots

 private:
  struct RunState {
    long long step = 0;
    bool finished = false;  // last step done, or diverged: the run will not step again
    bool diverged = false;  // a step failed (non-finite loss or gradient); Reset starts again
  };

  struct PendingSave;
  std::vector<TrainingRunSpec> specsFromControls(QString* error) const;
  QString experimentProblem(const poslab::ExperimentSpec& spec) const;  // empty: acceptable
  // Shows spec in the controls (setup_ = spec); the runs are left alone.
  void loadControls(const poslab::ExperimentSpec& spec);
  void connectRun(TrainingRun* run);
  void showNewRuns(const std::vector<TrainingRunSpec>& specs);  // states, views and curves
  void onCheckpointSaved(int index, const QString& path, long long step, const QString& error);
  void failPendingSave(const QString& error);
  bool ensureRuns();  // (re)builds runs if the controls changed; false (and a message) on error
  void clearRuns();
  void clearCurves();
  void onSnapshot(int index, const poslab::Snapshot& snapshot);
  void setStatus(const QString& text);
  void onTaskChanged();  // shows the task's options (the setup's when it is the setup's task)
  long long modelHeadDim() const;  // d_model / heads of the model controls
  void updateRunState();           // the state label from the runs
  void updateSampleLengths();
  // Asks the shown runs' workers for fresh maps and samples (non-blocking; one in flight per
  // view, a request meanwhile is sent when the answer comes).
  void requestInspection();
  void sendAttentionRequest();
  void sendSamplesRequest();
  // The learned kernel costs seconds: only on Measure, when a run finishes and for loaded runs.
  void sendLagResponseRequest();

  QComboBox* task_ = nullptr;
  QListWidget* families_ = nullptr;
  QSpinBox* steps_ = nullptr;
  QDoubleSpinBox* lr_ = nullptr;
  QSpinBox* seed_ = nullptr;
  QSpinBox* trainLength_ = nullptr;
  QSpinBox* batch_ = nullptr;
  QLineEdit* evalLengths_ = nullptr;
  TaskOptionsForm* taskOptions_ = nullptr;
  QSpinBox* dModel_ = nullptr;
  QSpinBox* heads_ = nullptr;
  QSpinBox* layers_ = nullptr;
  QDoubleSpinBox* positionLrScale_ = nullptr;
  QSpinBox* evalEvery_ = nullptr;
  QSpinBox* evalSequences_ = nullptr;
  QLabel* runState_ = nullptr;
  QTabWidget* viewTabs_ = nullptr;
  PositionHistoryView* positionView_ = nullptr;
  ModelAttentionView* attentionView_ = nullptr;
  SampleView* sampleView_ = nullptr;
  LagResponseView* lagResponseView_ = nullptr;
  QComboBox* evalMetric_ = nullptr;
  QPushButton* playButton_ = nullptr;
  QPushButton* pauseButton_ = nullptr;
  QPushButton* stepButton_ = nullptr;
  QPushButton* resetButton_ = nullptr;
  QLabel* stepLabel_ = nullptr;
  QLabel* status_ = nullptr;
  QCustomPlot* lossPlot_ = nullptr;
  QCustomPlot* accuracyPlot_ = nullptr;
  QCustomPlot* evalPlot_ = nullptr;

  poslab::ExperimentSpec setup_;    // fields the controls do not show come from here
  poslab::ExperimentSpec running_;  // experiment() when the current runs were built
  std::vector<std::unique_ptr<TrainingRun>> runs_;
  std::vector<RunState> states_;
  std::vector<Curves> curves_;
  std::vector<std::vector<poslab::EvalResult>> lastEval_;  // per run, for the metric switch
  std::vector<poslab::Snapshot> lastSnapshot_;             // per run, latest with a step
  int generation_ = 0;  // bumped when runs are rebuilt: late answers of old runs are dropped
  bool attentionInFlight_ = false, attentionPending_ = false;
  bool samplesInFlight_ = false, samplesPending_ = false;
  bool lagResponseInFlight_ = false, lagResponsePending_ = false;
  QTimer replotTimer_;                        // coalesces snapshots: one replot per ~40 ms
  std::unique_ptr<PendingSave> pendingSave_;  // saveCheckpoints in flight
};

}  // namespace poslab::ui
