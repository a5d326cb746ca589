// A training run for the UI: one poslab::TrainingWorker (which owns the model and its thread)
// whose Snapshot callback becomes a queued Qt signal. The header is torch-free (pimpl).
#pragma once

#include <QObject>
#include <QString>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/pope_frequency_usage.h"  // plain data, no torch
#include "tasks/indirect_indexing.h"        // plain data, no torch
#include "train/inspection.h"               // plain data, no torch
#include "train/snapshot.h"                 // plain data, no torch
#include "train/train_config.h"             // plain data, no torch

#include "bridge/trained_model.h"  // torch-free (pimpl)

namespace poslab::ui {

// One run of the training panel: the whole TrainConfig (model.family is the run's family). The
// panel's controls edit some fields; a preset or a session can set any of them.
struct TrainingRunSpec {
  poslab::TrainConfig config;
  bool operator==(const TrainingRunSpec& other) const;  // same JSON: same run
};

// The trained model's attention on the sample input, as the live view asks for it.
struct TrainingAttention {
  long long step = 0;              // steps the model had taken
  poslab::AttentionSample sample;  // [layer][head] maps
  std::string error;               // non-empty: why there are no maps
};

// The model's answers on a few sample inputs; for indirect indexing also decoded.
struct TrainingSamples {
  long long step = 0;
  std::string taskId;
  std::vector<poslab::ExamplePrediction> examples;
  std::vector<poslab::IndirectIndexingExample> indirect;  // indirect-indexing only, per example
  std::string error;
};

// What the trained model learned lag by lag (core's measureLagResponse: flip the bit d tokens
// before the QUERY, watch the answer's margin) next to the task's kernel, with the CLI's summary
// (`poslab-cli response`): cosines over all lags, the trained lags 1..T-1 and the lags beyond,
// and the accuracy a linear readout with the learned kernel would reach (signAgreementFromCosine).
// Only kernel-lm and sector-teacher runs have it; other tasks come back with `error`.
struct TrainingLagResponse {
  long long step = 0;
  poslab::LagResponse response;
  poslab::LagResponseSummary summary;  // core's summarizeLagResponse(response)
  QString error;                       // non-empty: why there is no response
};

// How much of each layer's score each PoPE frequency carries (core's popeFrequencyUsage, MATH
// 4.6, as `poslab-cli pope-usage` prints it). Only PoPE runs have it; others come back with
// `error` naming their family.
struct TrainingPopeUsage {
  long long step = 0;
  poslab::PopeFrequencyUsage usage;
  QString error;  // non-empty: why there is no usage
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
  // Non-blocking: queued to the worker between steps; the answer comes as attentionReady /
  // samplesReady (emitted on the worker thread). Length: the sample input's T; maps are pooled to
  // at most maxSide.
  void requestAttention(long long length, long long maxSide);
  void requestSamples(long long count, long long length);
  // Non-blocking: the lag response at probe length `length` over `samples` sequences (at most 128
  // lags), answered by lagResponseReady. Costs seconds at long lengths: ask on demand.
  void requestLagResponse(long long length, long long samples);
  // Non-blocking: the PoPE frequency usage on `sequences` sequences of length `length`, answered
  // by popeUsageReady. One forward pass per batch of sequences: fast, but ask on demand.
  void requestPopeUsage(long long length, long long sequences);
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
  void attentionReady(int index, const poslab::ui::TrainingAttention& attention);
  void samplesReady(int index, const poslab::ui::TrainingSamples& samples);
  void lagResponseReady(int index, const poslab::ui::TrainingLagResponse& response);
  void popeUsageReady(int index, const poslab::ui::TrainingPopeUsage& usage);
  // saveCheckpoint's outcome: the step the file holds, or error (non-empty, naming the file).
  void checkpointSaved(int index, const QString& path, long long step, const QString& error);

 private:
  // Queues `fill(trainer, result)` on the worker between steps and emits `ready` with the result
  // (its step set first), or with only its error set when the job throws. Defined and used in
  // worker_adapter.cpp.
  template <typename Result, typename Fill>
  void postInspection(Fill fill, void (TrainingRun::*ready)(int, const Result&));

  struct Impl;
  int index_;
  TrainingRunSpec spec_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace poslab::ui

Q_DECLARE_METATYPE(poslab::Snapshot)
Q_DECLARE_METATYPE(poslab::ui::TrainingAttention)
Q_DECLARE_METATYPE(poslab::ui::TrainingSamples)
Q_DECLARE_METATYPE(poslab::ui::TrainingLagResponse)
Q_DECLARE_METATYPE(poslab::ui::TrainingPopeUsage)
