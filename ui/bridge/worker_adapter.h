// A training run for the UI: one poslab::TrainingWorker (which owns the model and its thread)
// whose Snapshot callback becomes a queued Qt signal. The header is torch-free (pimpl).
#pragma once

#include <QObject>
#include <QString>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "train/snapshot.h"  // plain data, no torch

namespace poslab::ui {

// What the training panel lets the user choose; everything else keeps TrainConfig's defaults.
struct TrainingRunSpec {
  std::string task = "kernel-lm";  // taskIds()
  std::string family = "rope";
  long long steps = 200;           // optimisation steps
  double lr = 3e-3;                // peak AdamW learning rate
  uint64_t seed = 0;               // same seed: same weights init and same batches per family
  long long trainLength = 64;      // training sequence length T
  std::vector<long long> evalLengths{64, 256};  // evaluation lengths (train short, test long)
  long long evalEvery = 50;        // evaluate every N steps (and at the end)
  long long batch = 32;            // sequences per step
  long long evalSequences = 32;    // sequences per evaluation length
  std::string device = "auto";     // "auto", "cpu", "cuda"

  bool operator==(const TrainingRunSpec&) const = default;
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
