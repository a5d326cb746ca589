// A training run for the UI: one poslab::TrainingWorker (which owns the model and its thread)
// whose Snapshot callback becomes a queued Qt signal. The header is torch-free (pimpl).
#pragma once

#include <QObject>
#include <QString>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tasks/indirect_indexing.h"  // plain data, no torch
#include "train/inspection.h"         // plain data, no torch
#include "train/snapshot.h"      // plain data, no torch
#include "train/train_config.h"  // plain data, no torch

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

class TrainingRun : public QObject {
  Q_OBJECT
 public:
  // Builds the trainer (config errors throw poslab::Error with core's message) and starts its
  // thread, paused. `index` identifies the run in the signals (compare mode: 0..3).
  TrainingRun(int index, const TrainingRunSpec& spec, QObject* parent = nullptr);
  ~TrainingRun() override;  // stops and joins the worker before the QObject goes away

  int index() const { return index_; }
  const TrainingRunSpec& spec() const { return spec_; }
  void play();
  void pause();
  void stepOnce();
  void reset();
  bool isPlaying() const;
  long long stepCount() const;  // steps done (atomic in the worker)
  std::string deviceName() const;
  // Non-blocking: queued to the worker between steps; the answer comes as attentionReady /
  // samplesReady (emitted on the worker thread). Length: the sample input's T; maps are pooled to
  // at most maxSide.
  void requestAttention(long long length, long long maxSide);
  void requestSamples(long long count, long long length);
  // Non-blocking: fills the named parameter with `value` between steps (tests and debugging: a
  // NaN makes the next step diverge). An unknown name comes back as a snapshot message.
  void setParameterValue(const std::string& name, double value);

 Q_SIGNALS:
  // Queued to the receiver's thread; emitted from the worker thread.
  void snapshot(int index, const poslab::Snapshot& snapshot);
  void attentionReady(int index, const poslab::ui::TrainingAttention& attention);
  void samplesReady(int index, const poslab::ui::TrainingSamples& samples);

 private:
  struct Impl;
  int index_;
  TrainingRunSpec spec_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace poslab::ui

Q_DECLARE_METATYPE(poslab::Snapshot)
Q_DECLARE_METATYPE(poslab::ui::TrainingAttention)
Q_DECLARE_METATYPE(poslab::ui::TrainingSamples)
