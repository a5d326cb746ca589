// The worker's wakeups are never lost: Play right after a pause always resumes, and stop() always
// returns, however the calls interleave with the worker's wait. Many quick cycles on a tiny model;
// every wait is bounded, so a lost wakeup fails the test instead of hanging it.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "test_support.h"
#include "train/training_worker.h"

namespace poslab {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kDeadline = std::chrono::seconds(30);  // a step takes milliseconds

TrainConfig tinyWakeupRun() {
  return poslab::testing::tinyKernelLmRun("rope", /*heads=*/1, /*dModel=*/8, /*trainLength=*/8,
                                          /*batch=*/2, /*steps=*/1000000);
}

// stop() on another thread; a stop that never returns ends the process (it cannot be undone).
void stopWithin(TrainingWorker& worker, const char* what) {
  auto done = std::async(std::launch::async, [&] { worker.stop(); });
  if (done.wait_for(kDeadline) != std::future_status::ready) {
    std::fprintf(stderr, "FAILED: stop() did not return within %lld s (%s): lost wakeup\n",
                 static_cast<long long>(kDeadline.count()), what);
    std::_Exit(1);
  }
}

TEST(TrainingWorkerWakeup, PlayAfterPauseAlwaysResumes) {
  TrainingWorker worker(tinyWakeupRun(), {});
  for (int cycle = 0; cycle < 300; ++cycle) {
    const long long before = worker.stepCount();
    worker.play();
    const auto deadline = Clock::now() + kDeadline;
    while (worker.stepCount() == before && Clock::now() < deadline) std::this_thread::yield();
    ASSERT_GT(worker.stepCount(), before) << "Play was ignored in cycle " << cycle;
    worker.pause();  // the worker finishes its step and waits again: the next play() races it
  }
  stopWithin(worker, "after play/pause cycles");
}

TEST(TrainingWorkerWakeup, StopAlwaysReturns) {
  for (int cycle = 0; cycle < 40; ++cycle) {
    TrainingWorker worker(tinyWakeupRun(), {});
    if (cycle % 2) {  // also while it trains: the last step ends, then the thread
      worker.play();
      while (worker.stepCount() == 0) std::this_thread::yield();
      worker.pause();
    }
    stopWithin(worker, cycle % 2 ? "after a pause" : "right after start");
  }
}

// requestStop() returns at once and refuses new jobs; the join comes later (stop, destructor).
TEST(TrainingWorkerWakeup, RequestStopThenJoin) {
  std::vector<std::unique_ptr<TrainingWorker>> workers;
  for (int i = 0; i < 4; ++i)
    workers.push_back(std::make_unique<TrainingWorker>(tinyWakeupRun(), nullptr));
  for (auto& w : workers) w->play();
  for (auto& w : workers) w->requestStop();  // all asked first: their last steps overlap
  for (auto& w : workers) {
    EXPECT_FALSE(w->isPlaying());
    EXPECT_FALSE(w->post([](Trainer&) {}));
    stopWithin(*w, "after requestStop");
  }
}

}  // namespace
}  // namespace poslab
