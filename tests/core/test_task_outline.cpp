// A task's outline (makeTaskOutline, TaskInfo::makeOutline): what the window's UI thread may ask
// of a task without reading its data (issue 34: "the budget check builds the run's tasks on the
// UI thread, so byte-lm reads its text file there"). The outline of every task answers as the
// built task does; byte-lm's is sized from its file and reads none of it, which a file of invalid
// UTF-8 shows (the outline builds, the task does not); checkTrainable's CorpusCheck::Size and
// trainingRunBudgetProblem use it; a TrainingWorker builds its trainer on its own thread and says
// why when it cannot.
#include <gtest/gtest.h>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "io/json_fields.h"
#include "tasks/task.h"
#include "test_support.h"
#include "train/experiment_spec.h"
#include "train/run_limits.h"
#include "train/trainable_check.h"
#include "train/training_worker.h"
#include "util/cancellation.h"
#include "util/error.h"

namespace poslab {
namespace {

TaskConfig outlineTaskConfig(const std::string& id) {
  TaskConfig c;
  c.id = id;
  c.trainLength = 64;
  c.headDim = 8;
  if (id == "sector-teacher") c.kernel = "first_jet";
  return c;
}

class TaskOutline : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& bytes) {
    return scratch_.write(name, bytes);
  }
  // 1000 bytes: 900 of them in the train split, 100 in the held-out one.
  std::string validText() { return write("valid.txt", std::string(1000, 'x')); }
  // The same size, with a byte no UTF-8 text has at offset 500.
  std::string invalidText() {
    std::string bytes(1000, 'x');
    bytes[500] = '\xff';
    return write("invalid.txt", bytes);
  }
  // A tiny byte-lm run over `textFile` (train length 16, evaluated at 16 on 2 sequences).
  static TrainConfig byteLmRun(const std::string& textFile) {
    TrainConfig c = testing::tinyKernelLmRun("rope", /*heads=*/2, /*dModel=*/16,
                                             /*trainLength=*/16, /*batch=*/2, /*steps=*/3);
    c.task = outlineTaskConfig("byte-lm");
    c.task.trainLength = 16;
    c.task.textFile = textFile;
    c.run.evalLengths = {16};
    c.run.evalSequences = 2;
    return c;
  }
  testing::ScratchFolder scratch_{"test_outline"};
  const std::filesystem::path& dir_ = scratch_.path();
};

// Every task's outline answers what the budgets and the form ask as its task does.
TEST_F(TaskOutline, AnswersAsTheBuiltTaskDoes) {
  for (const std::string& id : taskIds()) {
    TaskConfig c = outlineTaskConfig(id);
    if (id == "byte-lm") c.textFile = validText();
    for (bool evaluation : {false, true}) {
      const auto task = evaluation ? makeEvaluationTask(c) : makeTask(c);
      const auto outline = evaluation ? makeEvaluationTaskOutline(c) : makeTaskOutline(c);
      SCOPED_TRACE(id + (evaluation ? " (evaluation)" : ""));
      EXPECT_EQ(outline->id(), task->id());
      EXPECT_EQ(outline->vocabSize(), task->vocabSize());
      EXPECT_EQ(outline->hasAccuracy(), task->hasAccuracy());
      EXPECT_EQ(outline->answerTokenCount(), task->answerTokenCount());
      EXPECT_EQ(outline->minLength(), task->minLength());
      EXPECT_EQ(outline->maxLength(), task->maxLength());
      for (long long L : {64LL, 512LL})
        EXPECT_EQ(outline->accuracyDistances(L), task->accuracyDistances(L));
    }
  }
}

// byte-lm's splits from the size alone: 900 and 100 bytes, windows of T + 1 bytes.
TEST_F(TaskOutline, ByteLmIsSizedFromItsFile) {
  TaskConfig c = outlineTaskConfig("byte-lm");
  c.textFile = validText();
  EXPECT_EQ(makeTaskOutline(c)->maxLength(), 899);
  EXPECT_EQ(makeEvaluationTaskOutline(c)->maxLength(), 99);
  EXPECT_THROW(makeTaskOutline(c)->sample(1, 8, 0), Error);  // no bytes to sample
}

// The outline reads nothing: invalid UTF-8 is found when the task is built, not in the outline.
// Missing and empty files are refused by both, naming the file.
TEST_F(TaskOutline, ByteLmOutlineReadsNothing) {
  TaskConfig c = outlineTaskConfig("byte-lm");
  c.textFile = invalidText();
  EXPECT_EQ(makeTaskOutline(c)->maxLength(), 899);
  EXPECT_THROW(makeTask(c), InvalidArgument);
  for (const std::string& file : {(dir_ / "missing.txt").string(), write("empty.txt", "")}) {
    c.textFile = file;
    try {
      makeTaskOutline(c);
      ADD_FAILURE() << "outline of " << file << " built";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
    }
  }
  c.textFile = write("two.txt", "ab");  // a train split of 1 byte: no sequence fits
  EXPECT_THROW(makeTaskOutline(c), InvalidArgument);
}

nlohmann::json byteLmExperiment(const std::string& textFile, long long evalLength) {
  return nlohmann::json{
      {"families", {"rope"}},
      {"config",
       {{"task", {{"id", "byte-lm"}, {"train_length", 16}, {"text_file", textFile}}},
        {"model", {{"d_model", 16}, {"heads", 2}, {"layers", 1}}},
        {"optim", {{"batch", 2}}},
        {"run",
         {{"steps", 2},
          {"eval_lengths", {evalLength}},
          {"eval_sequences", 2},
          {"eval_every", 0}}}}}};
}

// CorpusCheck::Size (the window's load check) checks the file and the lengths against its size
// without reading it; CorpusCheck::Read (the CLI) also refuses its bytes.
TEST_F(TaskOutline, TrainableCheckBySize) {
  const JsonPath at{"preset file 'p.json'", ""};
  const ExperimentSpec invalid = readExperiment(byteLmExperiment(invalidText(), 64), at);
  EXPECT_NO_THROW(checkTrainable(invalid, at, CorpusCheck::Size));
  EXPECT_THROW(checkTrainable(invalid, at, CorpusCheck::Read), InvalidArgument);
  // The held-out split has 100 bytes: length 100 needs 101.
  const ExperimentSpec tooLong = readExperiment(byteLmExperiment(validText(), 100), at);
  for (CorpusCheck check : {CorpusCheck::Size, CorpusCheck::Read}) {
    try {
      checkTrainable(tooLong, at, check);
      ADD_FAILURE() << "length 100 accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("config.run.eval_lengths[0]"), std::string::npos)
          << e.what();
    }
  }
}

// The budget check sizes the corpus and reads none of it: a run over the budget is named even
// when the file's bytes would not build (before the outline it said nothing for such a file).
TEST_F(TaskOutline, BudgetCheckReadsNoCorpus) {
  TrainConfig c = byteLmRun(invalidText());
  c.task.trainLength = 512;
  c.model.dModel = 64;
  c.model.layers = 2;
  c.optim.batch = 64;
  c.run.steps = 10000000;
  const std::string problem = trainingRunBudgetProblem(c);
  EXPECT_NE(problem.find("steps, batch and train length"), std::string::npos) << problem;
  c.run.steps = 10;
  EXPECT_EQ(trainingRunBudgetProblem(c), "");
}

// The worker's trainer is built on the worker's thread: a corpus that cannot be read is reported
// by a Failed snapshot naming the file, the worker takes no step, and a reset after the file is
// mended builds the run and trains.
TEST_F(TaskOutline, WorkerBuildsOnItsThreadAndSaysWhy) {
  const TrainConfig c = byteLmRun(invalidText());
  std::mutex m;
  std::condition_variable changed;
  std::vector<Snapshot> seen;
  TrainingWorker worker(c, [&](const Snapshot& s) {
    std::lock_guard<std::mutex> lock(m);
    seen.push_back(s);
    changed.notify_all();
  });
  auto waitFor = [&](auto done) {
    std::unique_lock<std::mutex> lock(m);
    return changed.wait_for(lock, std::chrono::seconds(60), [&] { return done(seen); });
  };
  ASSERT_TRUE(waitFor([](const auto& s) { return !s.empty(); }));
  {
    std::lock_guard<std::mutex> lock(m);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].event, SnapshotEvent::Failed);
    EXPECT_NE(seen[0].message.find("invalid.txt"), std::string::npos) << seen[0].message;
    EXPECT_NE(seen[0].message.find("UTF-8"), std::string::npos) << seen[0].message;
  }
  worker.stepOnce();
  EXPECT_THROW(worker.withTrainer([](Trainer&) {}), Error);  // runs after the step request
  EXPECT_EQ(worker.stepCount(), 0);
  write("invalid.txt", std::string(1000, 'y'));  // mended
  worker.reset();
  worker.stepOnce();
  ASSERT_TRUE(waitFor([](const auto& s) {
    return !s.empty() && s.back().event != SnapshotEvent::Reset && s.back().step == 1;
  }));
  EXPECT_EQ(worker.stepCount(), 1);
}

// A stop asked of the thread reading a corpus ends the read (util/cancellation.h): the training
// worker's Stop does not wait for a 1 GiB file. Without the scope, or with the flag clear, the
// same task builds.
TEST_F(TaskOutline, ACorpusReadStopsWhenAsked) {
  TaskConfig c = outlineTaskConfig("byte-lm");
  c.textFile = validText();
  std::atomic<bool> stop{true};
  {
    const ScopedCancellation cancellable(&stop);
    EXPECT_THROW(makeTask(c), Cancelled);
    stop = false;
    EXPECT_EQ(makeTask(c)->maxLength(), 899);
  }
  stop = true;
  EXPECT_EQ(makeTask(c)->maxLength(), 899);  // the scope has ended: nothing asks the flag
}

}  // namespace
}  // namespace poslab
