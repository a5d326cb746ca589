// Issue 34 item 2 in the window: a long evaluation says where it is. The training worker sends
// Evaluating snapshots during an evaluation (at most one per kEvaluationNotice; here one after
// every batch): no step (step 0), the fraction done rising to 1, a message naming the step, the
// length and the sequences. The fractions expected are the batches' own: 2 lengths of 12
// sequences in batches of 4, so (k / 3 + index) / 2 after batch k of length index.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "test_support.h"
#include "train/training_worker.h"

namespace poslab {
namespace {

TrainConfig progressRun() {
  TrainConfig c = testing::tinyKernelLmRun("rope", /*heads=*/2, /*dModel=*/16,
                                           /*trainLength=*/16, /*batch=*/2, /*steps=*/1);
  c.run.evalLengths = {32, 64};
  c.run.evalSequences = 12;
  c.run.evalTokensPerBatch = 4 * 64;  // 4 sequences a batch at 64 tokens, 8 at 32
  return c;
}

TEST(WorkerProgress, AnEvaluationSaysWhereItIs) {
  std::mutex m;
  std::condition_variable changed;
  std::vector<Snapshot> notes;
  bool stepped = false;
  TrainingWorker worker(progressRun(), [&](const Snapshot& s) {
    std::lock_guard<std::mutex> lock(m);
    if (s.event == SnapshotEvent::Evaluating)
      notes.push_back(s);
    else if (s.step == 1)
      stepped = true;
    changed.notify_all();
  });
  worker.setEvaluationNoticeInterval(std::chrono::milliseconds(0));
  worker.stepOnce();
  std::unique_lock<std::mutex> lock(m);
  ASSERT_TRUE(changed.wait_for(lock, std::chrono::seconds(120), [&] { return stepped; }));
  // Length 32: 8 sequences a batch (256 tokens), 12 sequences: batches of 8 and 4. Length 64:
  // 4 a batch, three batches.
  const std::vector<double> expected = {8.0 / 12 / 2, 1.0 / 2, (1 + 1.0 / 3) / 2, (1 + 2.0 / 3) / 2,
                                        1.0};
  ASSERT_EQ(notes.size(), expected.size());
  for (size_t i = 0; i < notes.size(); ++i) {
    const Snapshot& n = notes[i];
    EXPECT_EQ(n.step, 0);
    EXPECT_NEAR(n.evaluationDone, expected[i], 1e-12) << i;
    const std::string where = i < 2 ? "T = 32 (length 1 of 2), " : "T = 64 (length 2 of 2), ";
    EXPECT_NE(n.message.find("evaluation after step 1: " + where), std::string::npos) << n.message;
    EXPECT_NE(n.message.find("/12 sequences, ETA "), std::string::npos) << n.message;
  }
}

// The default interval: an evaluation of a few batches in well under a second says nothing.
TEST(WorkerProgress, AShortEvaluationSaysNothing) {
  std::mutex m;
  std::condition_variable changed;
  int notes = 0;
  bool stepped = false;
  TrainingWorker worker(progressRun(), [&](const Snapshot& s) {
    std::lock_guard<std::mutex> lock(m);
    if (s.event == SnapshotEvent::Evaluating) ++notes;
    if (s.step == 1) stepped = true;
    changed.notify_all();
  });
  const auto start = std::chrono::steady_clock::now();
  worker.stepOnce();
  std::unique_lock<std::mutex> lock(m);
  ASSERT_TRUE(changed.wait_for(lock, std::chrono::seconds(120), [&] { return stepped; }));
  if (std::chrono::steady_clock::now() - start < TrainingWorker::kEvaluationNotice)
    EXPECT_EQ(notes, 0);
}

}  // namespace
}  // namespace poslab
