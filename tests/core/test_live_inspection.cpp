// What the live-training views read from a run: the non-blocking worker post, per-example
// predictions on the sample stream, the indirect-indexing decoder, and the task option specs of
// the training form (each default is what the task really uses; each range is what it accepts).
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <torch/torch.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <future>
#include <thread>

#include "tasks/indirect_indexing.h"
#include "tasks/task.h"
#include "tasks/task_options.h"
#include "train/trainer.h"
#include "train/training_worker.h"
#include "util/error.h"

namespace poslab {
namespace {

TrainConfig indirectRun() {
  TrainConfig c;
  c.model.family = "rope";
  c.model.dModel = 32;
  c.model.heads = 2;
  c.model.layers = 1;
  c.task.id = "indirect-indexing";
  c.task.options = {{"alphabet", 16}, {"max_offset", 2}};
  c.task.trainLength = 12;
  c.optim.batch = 8;
  c.run.steps = 50;
  c.run.evalLengths = {12};
  c.run.evalSequences = 8;
  c.run.device = "cpu";
  return c;
}

// post() returns before its job ran (a UI thread never waits for a step) and the job runs on the
// worker thread; after stop() nothing is accepted.
TEST(TrainingWorkerPost, ReturnsAtOnceAndRunsTheJobOnTheWorker) {
  TrainingWorker worker(indirectRun(), nullptr);
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  std::atomic<bool> ran{false};
  std::thread::id jobThread;
  // The first job blocks the worker until released: the second post must still return at once.
  ASSERT_TRUE(worker.post([gate](Trainer&) { gate.wait(); }));
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(worker.post([&](Trainer& t) {
    jobThread = std::this_thread::get_id();
    ran = t.stepCount() == 0;
  }));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(500));
  EXPECT_FALSE(ran.load());
  release.set_value();
  for (int i = 0; i < 500 && !ran; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(ran.load());
  EXPECT_NE(jobThread, std::this_thread::get_id());
  std::promise<std::string> error;
  ASSERT_TRUE(worker.post([](Trainer&) { throw InvalidArgument("job failed on purpose"); },
                          [&](const std::string& m) { error.set_value(m); }));
  auto f = error.get_future();
  ASSERT_EQ(f.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_NE(f.get().find("on purpose"), std::string::npos);
  worker.stop();
  EXPECT_FALSE(worker.post([](Trainer&) {}));
}

// The sample stream: predictions are the argmax of the model at the answer position, targets
// the task's, and example 0 is the attention sample's input (same seed, same stream).
TEST(SamplePredictions, MatchTheTaskAndTheModel) {
  Trainer t(indirectRun());
  for (int i = 0; i < 3; ++i) t.step();
  const auto preds = samplePredictions(t.inspected(), 5, 12);
  ASSERT_EQ(preds.size(), 5u);
  for (const auto& p : preds) {
    ASSERT_EQ(p.tokens.size(), 12u);
    EXPECT_EQ(p.position, 11);  // the answer sits at T-1
    EXPECT_GE(p.prediction, 0);
    EXPECT_LT(p.prediction, t.vocabSize());
    EXPECT_GT(p.confidence, 0.0);
    EXPECT_LE(p.confidence, 1.0);
    const auto ex = decodeIndirectIndexing(t.config().task, p.tokens, p.prediction);
    EXPECT_EQ(ex.truth, p.target);  // the decoder's truth is the task's target
    EXPECT_EQ(ex.correct(), p.correct());
  }
  // The same seed and stream give the same inputs on every call.
  const auto again = samplePredictions(t.inspected(), 2, 12);
  EXPECT_EQ(again[0].tokens, preds[0].tokens);
  EXPECT_EQ(again[1].tokens, preds[1].tokens);
  // The attention of example 0 (exact at this size): causal rows that are distributions.
  const AttentionSample a = attentionSample(t.inspected(), 12, 64);
  ASSERT_EQ(a.size, 12);
  for (const auto& head : a.maps[0])
    for (long long i = 0; i < 12; ++i) {
      double row = 0;
      for (long long j = 0; j < 12; ++j) {
        const double w = head[static_cast<size_t>(i * 12 + j)];
        if (j > i) EXPECT_EQ(w, 0.0) << "causal: no weight above the diagonal";
        row += w;
      }
      EXPECT_NEAR(row, 1.0, 1e-5) << "row " << i;
    }
  EXPECT_THROW(samplePredictions(t.inspected(), 0, 12), InvalidArgument);
}

// decodeIndirectIndexing reads every batch example back to what the generator drew.
TEST(IndirectIndexingDecoder, ReadsBackTheTaskTargets) {
  TaskConfig c;
  c.id = "indirect-indexing";
  c.options = {{"alphabet", 20}, {"max_offset", 3}};
  auto task = makeTask(c);
  const long long T = 15, B = 64;
  Batch b = task->sample(B, T, 42);
  for (long long i = 0; i < B; ++i) {
    at::Tensor row = b.tokens[i].contiguous();
    std::vector<long long> tokens(row.data_ptr<int64_t>(), row.data_ptr<int64_t>() + T);
    const long long target = b.targets[i][T - 1].item<int64_t>();
    const auto ex = decodeIndirectIndexing(c, tokens, target);
    EXPECT_EQ(ex.truth, target);
    EXPECT_TRUE(ex.correct());
    EXPECT_EQ(ex.characters.size(), static_cast<size_t>(T - 3));
    EXPECT_EQ(ex.characters[static_cast<size_t>(ex.sourcePosition)], ex.source);
    EXPECT_NE(ex.offset, 0);
    EXPECT_LE(std::abs(ex.offset), 3);
    EXPECT_FALSE(decodeIndirectIndexing(c, tokens, target == 0 ? 1 : 0).correct());
  }
  // A hand-made example: "4 to the left of Z in ABSCOPZG is S" with A..Z as 0..25.
  TaskConfig k;
  k.id = "indirect-indexing";
  k.options = {{"alphabet", 26}, {"max_offset", 4}};
  const std::vector<long long> word = {0, 1, 18, 2, 14, 15, 25, 6};  // A B S C O P Z G
  std::vector<long long> tokens = word;
  tokens.push_back(26);          // SEP
  tokens.push_back(25);          // source Z
  tokens.push_back(26 + 1 + 0);  // offset -4: token A + 1 + (o + K)
  const auto ex = decodeIndirectIndexing(k, tokens, 18);
  EXPECT_EQ(ex.sourcePosition, 6);
  EXPECT_EQ(ex.offset, -4);
  EXPECT_EQ(ex.truth, 18);  // S
  EXPECT_TRUE(ex.correct());
  tokens[10] = 26 + 4 + 1;                                    // offset +1: token A + K + o
  EXPECT_EQ(decodeIndirectIndexing(k, tokens, 18).truth, 6);  // G
  tokens[8] = 5;                                              // no separator
  EXPECT_THROW(decodeIndirectIndexing(k, tokens, 0), InvalidArgument);
}

// Every option spec: setting it explicitly to its stated default gives the very batches of the
// task without it, and a value just outside its range is rejected by the task.
TEST(TaskOptionSpecs, DefaultsAndRangesAgreeWithTheTasks) {
  for (const std::string& id : taskIds()) {
    TaskConfig c;
    c.id = id;
    c.trainLength = 40;
    c.headDim = 16;
    if (id == "sector-teacher") c.kernel = "first_jet";
    const auto specs = taskOptionSpecs(c);
    if (id == "byte-lm") {
      EXPECT_TRUE(specs.empty());
      EXPECT_TRUE(taskKernelChoices(id).empty());
      continue;
    }
    ASSERT_FALSE(specs.empty()) << id;
    auto base = makeTask(c);
    const long long T = std::max(40LL, base->minLength());  // kv-retrieval's 32 pairs need 99
    const Batch ref = base->sample(4, T, 9);
    for (const auto& s : specs) {
      SCOPED_TRACE(id + " option " + s.name);
      TaskConfig with = c;
      with.options[s.name] = s.defaultValue;
      const Batch b = makeTask(with)->sample(4, T, 9);
      EXPECT_TRUE(torch::equal(b.tokens, ref.tokens));
      EXPECT_TRUE(torch::equal(b.targets, ref.targets));
      // An option that reads a negative value as "the default" (sector-teacher omega) has no lower
      // bound to test.
      if (std::isfinite(s.min) && !s.negativeMeansDefault) {
        with.options[s.name] = s.min - (s.integer ? 1 : 1e-3);
        EXPECT_THROW(makeTask(with), InvalidArgument);
      }
      if (std::isfinite(s.max) && s.max < 1e6) {
        with.options[s.name] = s.max + 1;
        EXPECT_THROW(makeTask(with), InvalidArgument);
      }
      if (s.integer) {
        with.options[s.name] = s.defaultValue + 0.5;
        EXPECT_THROW(makeTask(with), InvalidArgument);
      }
    }
  }
  EXPECT_EQ(taskKernelChoices("sector-teacher").front(), "phase");
  EXPECT_EQ(taskKernelChoices("kernel-lm").front(), "mixed_raw");
  // The default kernel (CLI without --kernel, the GUI on choosing the task) is not the first
  // choice for sector-teacher: it is the PJ-RoPE reference's --target default, recency_weak_jet.
  EXPECT_EQ(taskDefaultKernel("sector-teacher"), "recency_weak_jet");
  EXPECT_EQ(taskDefaultKernel("kernel-lm"), "mixed_raw");
  for (const std::string& id : taskIds()) {
    const auto choices = taskKernelChoices(id);
    const std::string kernel = taskDefaultKernel(id);
    if (choices.empty())
      EXPECT_EQ(kernel, "") << id;
    else
      EXPECT_NE(std::find(choices.begin(), choices.end(), kernel), choices.end()) << id;
  }
  TaskConfig unknown;
  unknown.id = "no-such-task";
  EXPECT_TRUE(taskOptionSpecs(unknown).empty());
}

}  // namespace
}  // namespace poslab
