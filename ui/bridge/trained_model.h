// A checkpoint file loaded into a trainer, ready to become a TrainingRun (worker_adapter.h), and
// the check that it belongs to a training setup. Loading is all-or-nothing: the panel loads every
// checkpoint of a session first and changes the window only when all of them loaded and match.
// The header is torch-free (pimpl); the trainer inside is core's.
#pragma once

#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "train/train_config.h"  // plain data, no torch

class QObject;

namespace poslab {
class Trainer;
}

namespace poslab::ui {

class TrainedModel {
 public:
  ~TrainedModel();
  TrainedModel(const TrainedModel&) = delete;
  TrainedModel& operator=(const TrainedModel&) = delete;

  // Reads a poslab-checkpoint-1 file (Trainer::fromCheckpoint: weights, optimiser state, step).
  // Throws poslab::Error naming the file (missing, not a checkpoint, truncated, ...).
  static std::unique_ptr<TrainedModel> load(const std::string& path);

  const std::string& path() const { return path_; }
  long long step() const { return step_; }
  // The config the checkpoint was trained with (as the trainer completed it).
  const poslab::TrainConfig& config() const { return config_; }
  // Hands the trainer over (TrainingRun's checkpoint constructor); null afterwards.
  std::unique_ptr<poslab::Trainer> release();
  // A model of its own with everything `from` holds (a model loaded by loadTrainedModelsAsync,
  // shared while it crossed threads); `from` is left without a trainer.
  static std::unique_ptr<TrainedModel> takeFrom(TrainedModel& from);

 private:
  TrainedModel() = default;
  std::string path_;
  long long step_ = 0;
  poslab::TrainConfig config_;
  std::unique_ptr<poslab::Trainer> trainer_;
};

// Checkpoints loaded off the UI thread (loadTrainedModelsAsync): each file's model, in the order
// asked, or the first file's one-line error (then no model).
struct LoadedModels {
  std::vector<std::shared_ptr<TrainedModel>> models;
  QString error;
};

// TrainedModel::load of every path on a thread of its own (reading a checkpoint unpickles its
// weights, and a family file's module in it runs its checks: seconds for a large model), so the
// window stays responsive; `done` runs on the UI thread, unless `context` is gone by then.
void loadTrainedModelsAsync(const QStringList& paths, QObject* context,
                            std::function<void(const LoadedModels&)> done);

// Empty when a run of `expected` (a run spec's config: the session's setup for one family) may
// continue from a checkpoint trained with `checkpoint`; else the first difference, naming the
// field: "model.d_model is 64 in the checkpoint, 32 in the setup". Fields the trainer fills in
// itself (the vocabulary, the task's head_dim, empty evaluation lengths) are compared as filled.
QString trainConfigMismatch(const poslab::TrainConfig& expected,
                            const poslab::TrainConfig& checkpoint);

}  // namespace poslab::ui
