// Bridge TU: includes the training worker (and with it ATen).
#include "bridge/worker_adapter.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>  // at::NoGradGuard: LibTorch 2.x no longer brings it with ATen.h

#include "train/training_worker.h"

namespace poslab::ui {

bool TrainingRunSpec::operator==(const TrainingRunSpec& other) const {
  return nlohmann::json(config) == nlohmann::json(other.config);
}

struct TrainingRun::Impl {
  std::unique_ptr<TrainingWorker> worker;
  std::string deviceName;  // recorded when the run is made: asking its worker would wait
};

TrainingRun::TrainingRun(int index, const TrainingRunSpec& spec, QObject* parent)
    : QObject(parent), index_(index), spec_(spec), impl_(std::make_unique<Impl>()) {
  qRegisterMetaType<poslab::Snapshot>();
  qRegisterMetaType<poslab::ui::InspectionResult>();
  // The callback runs on the worker thread; emitting there queues to the receivers' threads.
  impl_->worker = std::make_unique<TrainingWorker>(
      [&] {
        TrainConfig c = spec.config;
        c.validate();
        return c;
      }(),
      [this](const Snapshot& s) {
        // A build that fails says so at once, before the caller has connected to this run: that
        // snapshot goes through this object's event loop, so it arrives after the connections.
        if (s.event == SnapshotEvent::Failed)
          QMetaObject::invokeMethod(
              this, [this, s] { Q_EMIT snapshot(index_, s); }, Qt::QueuedConnection);
        else
          Q_EMIT snapshot(index_, s);
      });
  // The worker builds its trainer on its own thread (a corpus read there, not here); the device
  // is the one that trainer chooses.
  impl_->deviceName = Trainer::deviceNameFor(spec.config.run.device);
}

TrainingRun::TrainingRun(int index, const TrainingRunSpec& spec,
                         std::unique_ptr<TrainedModel> model, QObject* parent)
    : QObject(parent), index_(index), spec_(spec), impl_(std::make_unique<Impl>()) {
  qRegisterMetaType<poslab::Snapshot>();
  qRegisterMetaType<poslab::ui::InspectionResult>();
  if (!model) throw InvalidArgument("TrainingRun needs a loaded checkpoint");
  std::unique_ptr<Trainer> trainer = model->release();
  if (!trainer) throw InvalidArgument("TrainingRun needs a loaded checkpoint");
  impl_->deviceName = trainer->deviceName();
  impl_->worker = std::make_unique<TrainingWorker>(
      std::move(trainer), [this](const Snapshot& s) { Q_EMIT snapshot(index_, s); });
}

std::unique_ptr<TrainingRun> TrainingRun::fromCheckpoint(int index, const std::string& path,
                                                         QObject* parent) {
  std::unique_ptr<TrainedModel> model = TrainedModel::load(path);
  TrainingRunSpec spec;
  spec.config = model->config();
  return std::make_unique<TrainingRun>(index, spec, std::move(model), parent);
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
void TrainingRun::requestStop() {
  impl_->worker->requestStop();
}
bool TrainingRun::isPlaying() const {
  return impl_->worker->isPlaying();
}
long long TrainingRun::stepCount() const {
  return impl_->worker->stepCount();
}
std::string TrainingRun::deviceName() const {
  return impl_->deviceName;
}

// The job runs on the worker thread between steps; its result leaves as a queued signal. The
// worker is joined in the destructor before `this` goes, and jobs still queued then never run.
void TrainingRun::inspect(const InspectionRequest& request) {
  const InspectionKind kind = inspectionKind(request.kind);
  if (kind.id.empty()) {
    Q_EMIT inspected(index_, {request.kind, QVariant()});
    return;
  }
  // The worker outlives its jobs (its destructor joins the thread they run on); impl_->worker
  // does not: ~TrainingRun nulls it before the join.
  const TrainingWorker* worker = impl_->worker.get();
  const bool queued = impl_->worker->post(
      [this, kind, request, worker](Trainer& t) {
        const QVariant value = kind.answer(t.inspected(), t.stepCount(), request.args,
                                           [worker] { return !worker->isStopping(); });
        Q_EMIT inspected(index_, {request.kind, value});
      },
      [this, kind, request](const std::string& error) {
        Q_EMIT inspected(index_, {request.kind, kind.failed(error)});
      });
  if (!queued) Q_EMIT inspected(index_, {request.kind, kind.failed("the run has stopped")});
}

bool TrainingRun::saveCheckpoint(const QString& path) {
  const std::string file = path.toStdString();
  return impl_->worker->post(
      [this, path, file](Trainer& t) {
        t.saveCheckpoint(file);
        Q_EMIT checkpointSaved(index_, path, t.stepCount(), QString());
      },
      [this, path](const std::string& error) {
        Q_EMIT checkpointSaved(
            index_, path, -1,
            QObject::tr("cannot save checkpoint %1: %2").arg(path, QString::fromStdString(error)));
      });
}

void TrainingRun::setParameterValue(const std::string& name, double value) {
  impl_->worker->post(
      [name, value](Trainer& t) {
        at::NoGradGuard noGrad;
        t.parameter(name).fill_(value);
      },
      [this](const std::string& error) {
        Snapshot s;
        s.event = SnapshotEvent::Notice;
        s.message = "cannot set parameter: " + error;
        Q_EMIT snapshot(index_, s);
      });
}

}  // namespace poslab::ui
