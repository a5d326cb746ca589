// A TrainingWorker started from a checkpoint: it stands at the checkpoint's step, takes exactly
// the steps the original run would have taken (bit-identical losses), stops at run.steps, and its
// reset() is a fresh trainer from the config (the original run's step-1 loss again).
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include <unistd.h>

#include "test_support.h"
#include "train/trainer.h"
#include "train/training_worker.h"

namespace poslab {
namespace {

TrainConfig tinyCheckpointRun() {
  TrainConfig c =
      poslab::testing::tinyKernelLmRun("rope", /*heads=*/2, /*dModel=*/32, /*trainLength=*/16,
                                       /*batch=*/4, /*steps=*/8);
  c.run.seed = 11;
  c.run.evalLengths = {16};
  c.run.evalSequences = 4;
  return c;
}

// Collects snapshots from the worker thread; waits for a condition with a generous timeout.
class Recorder {
 public:
  TrainingWorker::Callback callback() {
    return [this](const Snapshot& s) {
      std::lock_guard<std::mutex> lock(m_);
      seen_.push_back(s);
      cv_.notify_all();
    };
  }
  // Waits until a snapshot satisfies pred; returns it.
  template <class Pred>
  Snapshot waitFor(Pred pred) {
    std::unique_lock<std::mutex> lock(m_);
    Snapshot found;
    const bool ok = cv_.wait_for(lock, std::chrono::seconds(60), [&] {
      for (const Snapshot& s : seen_)
        if (pred(s)) {
          found = s;
          return true;
        }
      return false;
    });
    EXPECT_TRUE(ok) << "timed out waiting for a snapshot";
    return found;
  }
  std::vector<Snapshot> all() {
    std::lock_guard<std::mutex> lock(m_);
    return seen_;
  }
  void clear() {
    std::lock_guard<std::mutex> lock(m_);
    seen_.clear();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<Snapshot> seen_;
};

std::string workerCheckpointTempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          (name + "-" + std::to_string(::getpid()) + ".pt"))
      .string();
}

TEST(WorkerCheckpoint, ResumedWorkerTakesTheOriginalSteps) {
  const TrainConfig cfg = tinyCheckpointRun();
  // Reference: the original run's losses at steps 1..8, straight through.
  std::vector<double> reference;
  {
    Trainer t(cfg);
    for (long long i = 0; i < cfg.run.steps; ++i) reference.push_back(t.step().loss);
  }
  // The original run on a worker: 3 steps, then its checkpoint (written between steps).
  const std::string path = workerCheckpointTempPath("poslab-worker-ckpt");
  {
    Recorder rec;
    TrainingWorker original(cfg, rec.callback());
    for (int i = 0; i < 3; ++i) original.stepOnce();
    rec.waitFor([](const Snapshot& s) { return s.step == 3; });
    original.withTrainer([&](Trainer& t) { t.saveCheckpoint(path); });
    EXPECT_EQ(original.stepCount(), 3);
  }

  Recorder rec;
  auto resumed = TrainingWorker::fromCheckpoint(path, rec.callback());
  EXPECT_EQ(resumed->stepCount(), 3);
  EXPECT_FALSE(resumed->isPlaying());
  resumed->stepOnce();
  const Snapshot fourth = rec.waitFor([](const Snapshot& s) { return s.step == 4; });
  EXPECT_EQ(fourth.loss, reference[3]) << "step 4 after resuming must be the original step 4";
  EXPECT_EQ(resumed->stepCount(), 4);
  // Play runs to run.steps and stops there, every loss bit-identical to the original run's.
  resumed->play();
  rec.waitFor([&](const Snapshot& s) { return s.step == cfg.run.steps; });
  for (int wait = 0; wait < 200 && resumed->isPlaying(); ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(resumed->isPlaying());
  EXPECT_EQ(resumed->stepCount(), cfg.run.steps);
  std::vector<Snapshot> seen = rec.all();
  ASSERT_EQ(seen.size(), static_cast<size_t>(cfg.run.steps - 3));
  for (const Snapshot& s : seen) {
    ASSERT_GE(s.step, 4);
    EXPECT_EQ(s.loss, reference[static_cast<size_t>(s.step - 1)]) << "step " << s.step;
  }

  // Reset: a fresh trainer from the config, not the checkpoint: step 1 is the original step 1.
  rec.clear();
  resumed->reset();
  rec.waitFor([](const Snapshot& s) { return s.event == SnapshotEvent::Reset; });
  EXPECT_EQ(resumed->stepCount(), 0);
  resumed->stepOnce();
  const Snapshot first = rec.waitFor([](const Snapshot& s) { return s.step == 1; });
  EXPECT_EQ(first.loss, reference[0]);
  resumed->stop();
  std::filesystem::remove(path);
}

TEST(WorkerCheckpoint, TakesAnExistingTrainerAndRefusesBadInput) {
  auto trainer = std::make_unique<Trainer>(tinyCheckpointRun());
  trainer->step();
  trainer->step();
  Recorder rec;
  TrainingWorker worker(std::move(trainer), rec.callback());
  EXPECT_EQ(worker.stepCount(), 2);
  worker.stepOnce();
  EXPECT_EQ(rec.waitFor([](const Snapshot& s) { return s.step > 0; }).step, 3);
  worker.stop();

  EXPECT_THROW(TrainingWorker(std::unique_ptr<Trainer>(), rec.callback()), InvalidArgument);
  EXPECT_THROW(TrainingWorker::fromCheckpoint("/nonexistent/run.pt", rec.callback()), Error);
  const std::string junk = workerCheckpointTempPath("poslab-junk-ckpt");
  { std::ofstream(junk) << "not a checkpoint"; }
  EXPECT_THROW(TrainingWorker::fromCheckpoint(junk, rec.callback()), Error);
  std::filesystem::remove(junk);
}

}  // namespace
}  // namespace poslab
