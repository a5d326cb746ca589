// Bridge TU: includes the training worker (and with it ATen).
#include "bridge/worker_adapter.h"

#include "train/training_worker.h"

namespace poslab::ui {

bool TrainingRunSpec::operator==(const TrainingRunSpec& other) const {
  return nlohmann::json(config) == nlohmann::json(other.config);
}

struct TrainingRun::Impl {
  std::unique_ptr<TrainingWorker> worker;
};

TrainingRun::TrainingRun(int index, const TrainingRunSpec& spec, QObject* parent)
    : QObject(parent), index_(index), spec_(spec), impl_(std::make_unique<Impl>()) {
  qRegisterMetaType<poslab::Snapshot>();
  // The callback runs on the worker thread; emitting there queues to the receivers' threads.
  impl_->worker = std::make_unique<TrainingWorker>(
      [&] {
        TrainConfig c = spec.config;
        c.validate();
        return c;
      }(),
      [this](const Snapshot& s) { Q_EMIT snapshot(index_, s); });
}

TrainingRun::~TrainingRun() {
  impl_->worker.reset();
}

void TrainingRun::play() {
  impl_->worker->play();
}
void TrainingRun::pause() {
  impl_->worker->pause();
}
void TrainingRun::stepOnce() {
  impl_->worker->stepOnce();
}
void TrainingRun::reset() {
  impl_->worker->reset();
}
bool TrainingRun::isPlaying() const {
  return impl_->worker->isPlaying();
}
long long TrainingRun::stepCount() const {
  return impl_->worker->stepCount();
}
std::string TrainingRun::deviceName() const {
  std::string name;
  impl_->worker->withTrainer([&](Trainer& t) { name = t.deviceName(); });
  return name;
}

}  // namespace poslab::ui
