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

 Q_SIGNALS:
  // Queued to the receiver's thread; emitted from the worker thread.
  void snapshot(int index, const poslab::Snapshot& snapshot);

 private:
  struct Impl;
  int index_;
  TrainingRunSpec spec_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace poslab::ui

Q_DECLARE_METATYPE(poslab::Snapshot)
