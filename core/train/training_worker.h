// Runs a Trainer on its own thread: play, pause, single step, reset, stop. The worker owns the
// model; the caller sees only value-type Snapshots through the callback (called on the worker
// thread; a UI adapter turns them into queued signals). Flags are atomics; the destructor joins.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "train/trainer.h"

namespace poslab {

class TrainingWorker {
 public:
  using Callback = std::function<void(const Snapshot&)>;

  // Checks the config now (Trainer::check throws here) and starts the thread, paused; the
  // thread builds the trainer first (a byte-lm corpus is read there, a model initialised: seconds
  // that must not block a UI thread). A build that fails sends one Snapshot with event Failed and
  // the reason; the worker then takes no step (play and stepOnce do nothing, jobs get the reason)
  // until reset() builds it again. stop() ends a build in progress within one read of its corpus
  // (util/cancellation.h), so it does not wait for a 1 GiB file.
  TrainingWorker(TrainConfig config, Callback onSnapshot);
  // Takes over a trainer that already exists (e.g. Trainer::fromCheckpoint): stepCount() starts
  // at trainer->stepCount() and play() continues exactly where that trainer stands, up to
  // config().run.steps. reset() still means a fresh trainer built from trainer->config() (the
  // same seed, so the same initial weights and batches as the run that wrote the checkpoint had
  // at step 0), not a return to the checkpoint. Throws InvalidArgument for a null trainer.
  TrainingWorker(std::unique_ptr<Trainer> trainer, Callback onSnapshot);
  // A worker resumed from a checkpoint file (Trainer::fromCheckpoint's errors throw here).
  static std::unique_ptr<TrainingWorker> fromCheckpoint(const std::string& path,
                                                        Callback onSnapshot);
  ~TrainingWorker();
  // Evaluating snapshots (where a long evaluation is) come at most this often.
  static constexpr std::chrono::milliseconds kEvaluationNotice{1000};
  // Another interval (0: one after every evaluation batch, for tests); set before play or step.
  void setEvaluationNoticeInterval(std::chrono::milliseconds interval) {
    evaluationNotice_ = interval;
  }

  TrainingWorker(const TrainingWorker&) = delete;
  TrainingWorker& operator=(const TrainingWorker&) = delete;

  void play();      // train until paused, finished (run.steps) or diverged
  void pause();     // stop after the current step
  void stepOnce();  // one step (while paused)
  void reset();     // a fresh trainer from the config (step 0): same initial weights and batches
  void stop();      // end the thread; idempotent
  // Asks the thread to end after the step in flight and returns at once (stop() or the
  // destructor then joins): callers stopping several workers let their last steps overlap.
  void requestStop();

  bool isPlaying() const { return playing_.load(); }
  // Whether stop() or requestStop() was called: a long job can poll it and give up early.
  bool isStopping() const { return stopping_.load(); }
  long long stepCount() const { return step_.load(); }
  // Runs job(trainer) on the worker thread between steps and waits for it (evaluate, save, ...).
  // Exceptions thrown by job are rethrown here.
  void withTrainer(const std::function<void(Trainer&)>& job);
  // Queues job(trainer) to run on the worker thread between steps and returns at once (a UI
  // thread must never wait for a step). Jobs run in the order posted, before the next step or
  // reset. An exception thrown by job goes to onError (on the worker thread), if given. False,
  // and the job dropped, once the worker has stopped; jobs still queued at stop() never run.
  bool post(std::function<void(Trainer&)> job,
            std::function<void(const std::string&)> onError = {});

 private:
  void loop();
  void doStep();
  // Builds trainer_ from config_ (the constructor's thread start and reset); on failure trainer_
  // stays null and a Failed snapshot says why. False when it failed.
  bool build();
  // The trainer a job runs on; throws Error with the build's reason when there is none.
  Trainer& trainer();

  TrainConfig config_;
  Callback onSnapshot_;
  std::unique_ptr<Trainer> trainer_;  // null until built, and after a failed build
  std::string buildError_;            // why the last build failed (worker thread only)
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<bool> playing_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<long long> step_{0};
  int pendingSteps_ = 0;                    // guarded by mutex_
  bool resetRequested_ = false;             // guarded by mutex_
  std::deque<std::function<void()>> jobs_;  // guarded by mutex_
  std::chrono::milliseconds evaluationNotice_ = kEvaluationNotice;
  std::thread thread_;
};

}  // namespace poslab
