// The training tab's runs, without widgets: it builds the runs (one TrainingRun per family, from
// the setup form's values or from checkpoints, in one place), plays, pauses, steps, resets and
// stops them, keeps each run's state from its snapshots (step, finished, diverged, the latest
// evaluation), sends the views' inspection requests one at a time per kind (a request meanwhile
// waits and the newest is sent when the answer comes), and saves checkpoints. It says what
// happened through signals; the panel's views draw it (training_panel.h). Tests drive it without a
// widget (tests/ui/test_training_controller.cpp).
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bridge/worker_adapter.h"
#include "training/training_setup.h"

namespace poslab::ui {

class TrainingController : public QObject {
  Q_OBJECT
 public:
  explicit TrainingController(QObject* parent = nullptr);
  ~TrainingController() override;  // stops and joins the runs; a pending save is not answered

  // The setup: the last loaded experiment; the form's values go on top of it (experiment()).
  const poslab::ExperimentSpec& setup() const { return setup_; }
  void setSetup(const poslab::ExperimentSpec& spec) { setup_ = spec; }
  poslab::ExperimentSpec experiment(const TrainingFormSettings& form) const {
    return experimentFromForm(setup_, form);
  }
  // What the current runs were built from (experiment(form) when there are none).
  poslab::ExperimentSpec runningExperiment(const TrainingFormSettings& form) const;

  // The runs the form describes, built unless the current runs are those already; false (and the
  // reason as status) when the form cannot run or core refuses the config.
  bool ensureRuns(const TrainingFormSettings& form);
  // Runs that continue from checkpoints: `form` shows `spec` (formFromExperiment, as the form
  // holds it), checkpoints[i] is the model of spec.families[i]. Every file is loaded and checked
  // against the config its family's run gets (runs follow the form's family order) before anything
  // changes: a missing, unreadable or corrupt file, or one trained with another config, is refused
  // with *error naming the file (and the field that differs) and the runs and setup stay. On
  // success the setup is `spec` and the runs stand paused at the checkpoints' steps.
  bool startFromCheckpoints(const poslab::ExperimentSpec& spec, const TrainingFormSettings& form,
                            const QStringList& checkpoints, QString* error);
  // Reads the checkpoints on a thread of their own (loadTrainedModelsAsync: unpickling weights
  // takes seconds) and keeps the models for the next startFromCheckpoints, which then reads none
  // of these files on the UI thread; it takes them whether it succeeds or not. `done` runs on the
  // UI thread with an empty string, or the first file's one-line error (nothing kept).
  void preloadCheckpoints(const QStringList& paths, std::function<void(const QString&)> done);
  // Forgets preloaded models that no startFromCheckpoints took (a session refused before).
  void dropPreloadedCheckpoints() { preloaded_.clear(); }

  // The user's actions. play and stepOnce build the runs first (ensureRuns). A diverged or
  // finished run does not play again until reset.
  void play(const TrainingFormSettings& form);
  void pause();
  void stepOnce(const TrainingFormSettings& form);
  void reset();  // every run back to step 0 with the same seed
  void stop();   // ends and joins every run and drops them; the setup stays

  int runCount() const { return static_cast<int>(runs_.size()); }
  TrainingRun* run(int index) const { return runs_.at(static_cast<size_t>(index)).get(); }
  std::string runFamily(int index) const { return run(index)->spec().config.model.family; }
  long long runStep(int index) const { return states_.at(static_cast<size_t>(index)).step; }
  long long stepCount() const;  // the smallest step any run has reported
  bool isPlaying() const;
  bool allFinished() const;  // every run took its last step, diverged or could not be built
  // The first run that could not be built, "family: why" (its Failed snapshot); empty when none.
  QString runFailure() const;
  const poslab::Snapshot& lastSnapshot(int index) const {
    return lastSnapshot_.at(static_cast<size_t>(index));
  }
  const std::vector<poslab::EvalResult>& latestEval(int index) const {
    return lastEval_.at(static_cast<size_t>(index));
  }
  // "not started", "playing", "paused", "finished", "diverged at step N, paused"; per family
  // ("rope: playing · alibi: finished") when the runs differ.
  QString runStateText() const;
  // Where a long run is, for a line under the buttons: while it plays "120 of 1200 steps, about
  // 9 min left" (the rate since Play), during an evaluation of minutes where it is ("rope:
  // evaluation after step 1200: T = 8192 (length 4 of 4), 12/32 sequences, 40%"); else empty.
  QString progressText() const { return progress_; }
  QString statusText() const { return status_; }
  void setStatus(const QString& text);  // statusChanged

  // Inspection of run `index`'s model (bridge/inspection.h), answered by `inspected`.
  // Out-of-range runs are ignored; while one request of a kind is in flight the newest of that
  // kind waits, and goes out (inspectionSent) when the answer comes.
  void inspect(int index, const InspectionRequest& request);

  // Checkpoints: see TrainingPanel::saveCheckpoints.
  struct SavedCheckpoint {
    int run = 0;
    std::string family;
    QString path;
    long long step = 0;  // the step the file holds
  };
  using CheckpointsSaved =
      std::function<void(const std::vector<SavedCheckpoint>& saved, const QString& error)>;
  bool saveCheckpoints(const QStringList& paths, CheckpointsSaved done, QString* error);
  bool isSavingCheckpoints() const { return pendingSave_ != nullptr; }

 Q_SIGNALS:
  void statusChanged(const QString& text);
  void runsCleared();  // the runs are gone (replaced or stopped): views and curves empty
  void runsStarted(const std::vector<poslab::ui::TrainingRunSpec>& specs);  // new runs, step 0
  void runsReset();                           // every run back at step 0
  void runStateChanged();                     // runStateText() may have changed
  void stepChanged(long long step);           // stepCount() after a snapshot, a reset or a load
  void progressChanged(const QString& text);  // progressText()
  // A snapshot went into run `index`'s state; inspect: the model the user looks at changed (the
  // views should ask for fresh maps and samples); finishedNow: the run just took its last step.
  void snapshotApplied(int index, const poslab::Snapshot& snapshot, bool inspect, bool finishedNow);
  // A request of `kind` went to run `index` (a waiting one goes when the previous answer came).
  void inspectionSent(int index, const std::string& kind);
  void inspected(int index, const poslab::ui::InspectionResult& result);

 private:
  struct RunState {
    long long step = 0;
    bool finished = false;  // last step done, or diverged: the run will not step again
    bool diverged = false;  // a step failed (non-finite loss or gradient); Reset starts again
    // The run could not be built on its thread (its corpus, its model): why; Reset tries again.
    QString failure;
  };
  // One kind of inspection request: at most one in flight, the newest one waiting.
  struct Throttle {
    bool inFlight = false;
    bool pending = false;
    std::function<void()> send;  // the waiting request
  };
  struct PendingSave;

  // The one place runs are built: one per spec, continuing models[i] when given. False, with
  // *error, when core refuses a config (the old runs are gone then).
  bool startRuns(const std::vector<TrainingRunSpec>& specs,
                 std::vector<std::unique_ptr<TrainedModel>> models,
                 const poslab::ExperimentSpec& running, QString* error);
  void connectRun(TrainingRun* run);
  void clearRuns();
  void onSnapshot(int index, const poslab::Snapshot& snapshot);
  void onCheckpointSaved(int index, const QString& path, long long step, const QString& error);
  void failPendingSave(const QString& error);
  void setProgress(const QString& text);
  // progressText() after a step: the steps' ETA while playing, else empty.
  void updateStepProgress();
  void throttled(Throttle& t, std::function<void()> send);
  void answered(Throttle& t);

  poslab::ExperimentSpec setup_;    // fields the form does not show come from here
  poslab::ExperimentSpec running_;  // experiment() when the current runs were built
  std::vector<std::unique_ptr<TrainingRun>> runs_;
  std::vector<RunState> states_;
  std::vector<std::vector<poslab::EvalResult>> lastEval_;  // per run
  std::vector<poslab::Snapshot> lastSnapshot_;             // per run, latest with a step
  int generation_ = 0;  // bumped when runs are rebuilt: late answers of old runs are dropped
  std::map<std::string, Throttle> throttles_;  // by inspection kind
  QString status_;
  QString progress_;
  QElapsedTimer playClock_;                                     // since the last Play
  long long playStartStep_ = 0;                                 // stepCount() at that Play
  std::unique_ptr<PendingSave> pendingSave_;                    // saveCheckpoints in flight
  std::map<QString, std::shared_ptr<TrainedModel>> preloaded_;  // by path: preloadCheckpoints
};

}  // namespace poslab::ui
