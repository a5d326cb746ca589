#include "train/training_worker.h"

#include <exception>
#include <future>

#include "train/training_loop.h"

namespace poslab {

TrainingWorker::TrainingWorker(TrainConfig config, Callback onSnapshot)
    : config_(std::move(config)),
      onSnapshot_(std::move(onSnapshot)),
      trainer_(std::make_unique<Trainer>(config_)) {
  thread_ = std::thread([this] { loop(); });
}

TrainingWorker::TrainingWorker(std::unique_ptr<Trainer> trainer, Callback onSnapshot)
    : onSnapshot_(std::move(onSnapshot)), trainer_(std::move(trainer)) {
  if (!trainer_) throw InvalidArgument("TrainingWorker needs a trainer");
  config_ = trainer_->config();  // validated and completed by the trainer: reset() rebuilds it
  step_ = trainer_->stepCount();
  thread_ = std::thread([this] { loop(); });
}

std::unique_ptr<TrainingWorker> TrainingWorker::fromCheckpoint(const std::string& path,
                                                               Callback onSnapshot) {
  return std::make_unique<TrainingWorker>(Trainer::fromCheckpoint(path), std::move(onSnapshot));
}

TrainingWorker::~TrainingWorker() {
  stop();
}

// Flags the worker's wait predicate reads are stored under mutex_: a store between the worker's
// check of the predicate (false) and its blocking would otherwise lose the notify (Play ignored,
// or stop()'s join waiting forever).
void TrainingWorker::play() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    playing_ = true;
  }
  wake_.notify_all();
}

void TrainingWorker::pause() {
  playing_ = false;  // wakes nobody: the worker checks it before each step
}

void TrainingWorker::stepOnce() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++pendingSteps_;
  }
  wake_.notify_all();
}

void TrainingWorker::reset() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    playing_ = false;
    resetRequested_ = true;
    pendingSteps_ = 0;
  }
  wake_.notify_all();
}

void TrainingWorker::requestStop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    playing_ = false;
  }
  wake_.notify_all();
}

void TrainingWorker::stop() {
  requestStop();
  if (thread_.joinable()) thread_.join();
}

void TrainingWorker::withTrainer(const std::function<void(Trainer&)>& job) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> result = done->get_future();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) throw Error("the training worker has stopped");
    jobs_.push_back([this, job, done] {
      try {
        job(*trainer_);
        done->set_value();
      } catch (...) {
        done->set_exception(std::current_exception());
      }
    });
  }
  wake_.notify_all();
  result.get();
}

bool TrainingWorker::post(std::function<void(Trainer&)> job,
                          std::function<void(const std::string&)> onError) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return false;
    jobs_.push_back([this, job = std::move(job), onError = std::move(onError)] {
      try {
        job(*trainer_);
      } catch (const std::exception& e) {
        if (onError) onError(e.what());
      } catch (...) {
        if (onError) onError("unknown error");
      }
    });
  }
  wake_.notify_all();
  return true;
}

void TrainingWorker::doStep() {
  TrainingCallbacks callbacks;
  callbacks.onStep = [this](const Snapshot& snap) {
    step_ = snap.step;
    return true;
  };
  // A failed evaluation is reported in the snapshot; the run goes on. The worker's stop (the
  // window's Stop, new runs replacing these) ends an evaluation before its next batch, so that
  // the UI thread joining the worker does not wait for a long evaluation.
  trainer_->setEvaluationStop([this] { return stopping_.load(); });
  callbacks.evaluate = [](Trainer& trainer, Snapshot& snap) {
    try {
      snap.eval = trainer.evaluate(trainer.config().run.evalLengths);
    } catch (const EvaluationStopped&) {
      // stopping: nothing sees this snapshot's evaluation
    } catch (const std::exception& e) {
      snap.message = std::string("evaluation failed: ") + e.what();
    }
  };
  Snapshot snap;
  const TrainingOutcome outcome = trainingStep(*trainer_, callbacks, snap);
  if (outcome == TrainingOutcome::Finished || outcome == TrainingOutcome::Diverged)
    playing_ = false;
  if (onSnapshot_) onSnapshot_(snap);
}

void TrainingWorker::loop() {
  while (true) {
    std::function<void()> job;
    bool doReset = false, doOne = false;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] {
        return stopping_ || playing_ || pendingSteps_ > 0 || resetRequested_ || !jobs_.empty();
      });
      if (stopping_) {
        // Fail any waiting jobs rather than leave their callers blocked.
        for (auto& j : jobs_) j = nullptr;
        jobs_.clear();
        return;
      }
      if (!jobs_.empty()) {
        job = std::move(jobs_.front());
        jobs_.pop_front();
      } else if (resetRequested_) {
        resetRequested_ = false;
        doReset = true;
      } else if (pendingSteps_ > 0) {
        --pendingSteps_;
        doOne = true;
      }
    }
    if (job) {
      job();
    } else if (doReset) {
      trainer_ = std::make_unique<Trainer>(config_);
      step_ = 0;
      Snapshot snap;
      snap.event = SnapshotEvent::Reset;
      snap.message = "reset";
      snap.positionLayers = trainer_->positionParametersByLayer();
      snap.position = meanOverLayers(snap.positionLayers);
      if (onSnapshot_) onSnapshot_(snap);
    } else if (doOne || playing_) {
      if (isFinalStep(config_.run, trainer_->stepCount())) {
        playing_ = false;
        continue;
      }
      doStep();
    }
  }
}

}  // namespace poslab
