// Bridge TU: includes the training worker (and with it ATen).
#include "bridge/worker_adapter.h"

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>  // at::NoGradGuard: LibTorch 2.x no longer brings it with ATen.h

#include "tasks/task_info.h"
#include "train/lag_response.h"
#include "train/training_worker.h"

namespace poslab::ui {

bool TrainingRunSpec::operator==(const TrainingRunSpec& other) const {
  return nlohmann::json(config) == nlohmann::json(other.config);
}

struct TrainingRun::Impl {
  std::unique_ptr<TrainingWorker> worker;
  std::string deviceName;  // recorded when the run is built: asking later would wait for a step
};

TrainingRun::TrainingRun(int index, const TrainingRunSpec& spec, QObject* parent)
    : QObject(parent), index_(index), spec_(spec), impl_(std::make_unique<Impl>()) {
  qRegisterMetaType<poslab::Snapshot>();
  qRegisterMetaType<poslab::ui::TrainingAttention>();
  qRegisterMetaType<poslab::ui::TrainingSamples>();
  qRegisterMetaType<poslab::ui::TrainingLagResponse>();
  qRegisterMetaType<poslab::ui::TrainingPopeUsage>();
  // The callback runs on the worker thread; emitting there queues to the receivers' threads.
  impl_->worker = std::make_unique<TrainingWorker>(
      [&] {
        TrainConfig c = spec.config;
        c.validate();
        return c;
      }(),
      [this](const Snapshot& s) { Q_EMIT snapshot(index_, s); });
  // The worker is paused and idle here: this returns at once.
  impl_->worker->withTrainer([this](Trainer& t) { impl_->deviceName = t.deviceName(); });
}

TrainingRun::TrainingRun(int index, const TrainingRunSpec& spec,
                         std::unique_ptr<TrainedModel> model, QObject* parent)
    : QObject(parent), index_(index), spec_(spec), impl_(std::make_unique<Impl>()) {
  qRegisterMetaType<poslab::Snapshot>();
  qRegisterMetaType<poslab::ui::TrainingAttention>();
  qRegisterMetaType<poslab::ui::TrainingSamples>();
  qRegisterMetaType<poslab::ui::TrainingLagResponse>();
  qRegisterMetaType<poslab::ui::TrainingPopeUsage>();
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

namespace {
void setError(std::string& field, const std::string& error) {
  field = error;
}
void setError(QString& field, const std::string& error) {
  field = QString::fromStdString(error);
}
}  // namespace

// The jobs below run on the worker thread between steps; their results leave as queued signals.
// The worker is joined in the destructor before `this` goes, and jobs still queued then never run.
template <typename Result, typename Fill>
void TrainingRun::postInspection(Fill fill, void (TrainingRun::*ready)(int, const Result&)) {
  impl_->worker->post(
      [this, fill, ready](Trainer& t) {
        Result r;
        r.step = t.stepCount();
        fill(t, r);
        Q_EMIT(this->*ready)(index_, r);
      },
      [this, ready](const std::string& error) {
        Result r;
        setError(r.error, error);
        Q_EMIT(this->*ready)(index_, r);
      });
}

void TrainingRun::requestAttention(long long length, long long maxSide) {
  postInspection(
      [length, maxSide](Trainer& t, TrainingAttention& a) {
        a.sample = t.attentionSample(length, maxSide);
      },
      &TrainingRun::attentionReady);
}

void TrainingRun::requestSamples(long long count, long long length) {
  postInspection(
      [count, length](Trainer& t, TrainingSamples& s) {
        s.taskId = t.config().task.id;
        s.examples = t.samplePredictions(count, length);
        const TaskInfo* task = findTaskInfo(s.taskId);
        if (task && task->capabilities.decodedExamples)
          for (const auto& e : s.examples)
            s.indirect.push_back(decodeIndirectIndexing(t.config().task, e.tokens, e.prediction));
      },
      &TrainingRun::samplesReady);
}

void TrainingRun::requestLagResponse(long long length, long long samples) {
  // The job runs on the worker's own thread, so the worker outlives it (its destructor joins that
  // thread). impl_->worker does not: ~TrainingRun nulls it before the join.
  const TrainingWorker* worker = impl_->worker.get();
  postInspection(
      [worker, length, samples](Trainer& t, TrainingLagResponse& r) {
        // A stop (Reset all, a new setup, closing) does not wait for the rest of the probe.
        r.response = measureLagResponse(t, length, samples, 128, [worker](long long, long long) {
          return !worker->isStopping();
        });
        r.summary = summarizeLagResponse(r.response);
      },
      &TrainingRun::lagResponseReady);
}

void TrainingRun::requestPopeUsage(long long length, long long sequences) {
  postInspection(
      [length, sequences](Trainer& t, TrainingPopeUsage& u) {
        u.usage = t.popeFrequencyUsage(length, sequences);
      },
      &TrainingRun::popeUsageReady);
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
