// A training run for the UI: one poslab::TrainingWorker (which owns the model and its thread)
// whose Snapshot callback becomes a queued Qt signal. The header is torch-free (pimpl).
#pragma once

#include <QObject>
#include <QString>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "train/snapshot.h"      // plain data, no torch
#include "train/train_config.h"  // plain data, no torch

#include "bridge/inspection.h"     // InspectionRequest, InspectionResult: torch-free
#include "bridge/trained_model.h"  // torch-free (pimpl)

namespace poslab::ui {

// One run of the training panel: the whole TrainConfig (model.family is the run's family). The
// panel's controls edit some fields; a preset or a session can set any of them.
struct TrainingRunSpec {
  poslab::TrainConfig config;
  bool operator==(const TrainingRunSpec& other) const;  // same JSON: same run
};

class TrainingRun : public QObject {
  Q_OBJECT
 public:
  // Builds the trainer (config errors throw poslab::Error with core's message) and starts its
  // thread, paused. `index` identifies the run in the signals (compare mode: 0..3).
  TrainingRun(int index, const TrainingRunSpec& spec, QObject* parent = nullptr);
  // A run that continues a loaded checkpoint (TrainedModel::load; its trainer is taken over):
  // stepCount() starts at model->step(), Play continues exactly where the saved run stood,
  // reset() starts from step 0 of the checkpoint's config. `spec` is what the panel compares its
  // controls with (the setup the checkpoint was checked against: trainConfigMismatch).
  TrainingRun(int index, const TrainingRunSpec& spec, std::unique_ptr<TrainedModel> model,
              QObject* parent = nullptr);
  // Loads the checkpoint file and runs it; its spec is the checkpoint's config. Throws
  // poslab::Error naming the file.
  static std::unique_ptr<TrainingRun> fromCheckpoint(int index, const std::string& path,
                                                     QObject* parent = nullptr);
  ~TrainingRun() override;  // stops and joins the worker before the QObject goes away

  int index() const { return index_; }
  const TrainingRunSpec& spec() const { return spec_; }
  void play();
  void pause();
  void stepOnce();
  void reset();
  // Asks the worker to end after its step in flight and returns at once; the destructor joins.
  // Stopping several runs this way first lets their last steps overlap.
  void requestStop();
  bool isPlaying() const;
  long long stepCount() const;     // steps done (atomic in the worker)
  std::string deviceName() const;  // recorded when the run was built: never waits
  // Non-blocking: queued to the worker between steps, answered by `inspected` (emitted on the
  // worker thread) with the kind's result, or with its error when the kind is unknown, the run
  // cannot answer it or the worker has stopped (inspection.h).
  void inspect(const InspectionRequest& request);
  // Non-blocking: fills the named parameter with `value` between steps (tests and debugging: a
  // NaN makes the next step diverge). An unknown name comes back as a snapshot message.
  void setParameterValue(const std::string& name, double value);
  // Non-blocking: writes the run's checkpoint to `path` on the worker thread between steps
  // (atomically: a temporary file renamed over `path`). checkpointSaved reports the outcome.
  // False, and no signal, when the worker has already stopped.
  bool saveCheckpoint(const QString& path);

 Q_SIGNALS:
  // Queued to the receiver's thread; emitted from the worker thread.
  void snapshot(int index, const poslab::Snapshot& snapshot);
  void inspected(int index, const poslab::ui::InspectionResult& result);
  // saveCheckpoint's outcome: the step the file holds, or error (non-empty, naming the file).
  void checkpointSaved(int index, const QString& path, long long step, const QString& error);

 private:
  struct Impl;
  int index_;
  TrainingRunSpec spec_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace poslab::ui

Q_DECLARE_METATYPE(poslab::Snapshot)
