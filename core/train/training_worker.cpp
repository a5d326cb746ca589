#include "train/training_worker.h"

#include <chrono>
#include <cmath>
#include <exception>
#include <future>
#include <string>
#include <vector>

#include "train/training_loop.h"
#include "util/cancellation.h"
#include "util/error.h"

namespace poslab {

TrainingWorker::TrainingWorker(TrainConfig config, Callback onSnapshot)
    : config_(std::move(config)), onSnapshot_(std::move(onSnapshot)) {
  Trainer::check(config_);  // what needs no data and no model: refused here, at once
  thread_ = std::thread([this] {
    build();
    loop();
  });
}

bool TrainingWorker::build() {
  trainer_.reset();  // before the new one: two models of a large config need not fit together
  // stop() while the corpus is read ends the read (the UI thread joining this one does not wait).
  const ScopedCancellation cancellable(&stopping_);
  try {
    trainer_ = std::make_unique<Trainer>(config_);
    buildError_.clear();
    return true;
  } catch (const Cancelled&) {
    buildError_ = "stopped while it was built";
    return false;  // stopping: nobody waits for a snapshot
  } catch (const std::exception& e) {
    buildError_ = e.what();
  } catch (...) {
    buildError_ = "unknown error";
  }
  playing_ = false;
  Snapshot snap;
  snap.event = SnapshotEvent::Failed;
  snap.message = "cannot build the run: " + buildError_;
  if (onSnapshot_) onSnapshot_(snap);
  return false;
}

Trainer& TrainingWorker::trainer() {
  if (!trainer_) throw Error("the run has no model: cannot build the run: " + buildError_);
  return *trainer_;
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
        job(trainer());
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
        job(trainer());
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
  callbacks.evaluate = [this](Trainer& trainer, Snapshot& snap) {
    const std::vector<long long>& lengths = trainer.config().run.evalLengths;
    const long long step = trainer.stepCount();
    const auto start = std::chrono::steady_clock::now();
    auto lastNotice = start;  // the first after one interval
    // Where the evaluation is, at most once per interval (a paper's lengths take minutes).
    const EvalProgress progress = [&](size_t index, long long L, long long done, long long total) {
      const auto now = std::chrono::steady_clock::now();
      if (!onSnapshot_ || now - lastNotice < evaluationNotice_) return;
      lastNotice = now;
      Snapshot note;
      note.event = SnapshotEvent::Evaluating;
      note.evaluationDone =
          (static_cast<double>(index) + static_cast<double>(done) / static_cast<double>(total)) /
          static_cast<double>(lengths.size());
      const double elapsed = std::chrono::duration<double>(now - start).count();
      const double left = elapsed / note.evaluationDone * (1 - note.evaluationDone);
      note.message = "evaluation after step " + std::to_string(step) +
                     ": T = " + std::to_string(L) + " (length " + std::to_string(index + 1) +
                     " of " + std::to_string(lengths.size()) + "), " + std::to_string(done) + "/" +
                     std::to_string(total) + " sequences, ETA " +
                     std::to_string(std::llround(left)) + " s";
      onSnapshot_(note);
    };
    try {
      snap.eval = trainer.evaluate(lengths, 0, progress);
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
      step_ = 0;
      if (!build()) continue;  // its Failed snapshot said why
      Snapshot snap;
      snap.event = SnapshotEvent::Reset;
      snap.message = "reset";
      snap.positionLayers = trainer_->positionParametersByLayer();
      snap.position = meanOverLayers(snap.positionLayers);
      if (onSnapshot_) onSnapshot_(snap);
    } else if (doOne || playing_) {
      if (!trainer_) {  // the build failed: nothing to step
        playing_ = false;
        continue;
      }
      if (isFinalStep(config_.run, trainer_->stepCount())) {
        playing_ = false;
        continue;
      }
      doStep();
    }
  }
}

}  // namespace poslab
