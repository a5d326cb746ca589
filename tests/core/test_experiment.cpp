// runExperiment: several jobs give the same results, in the same order, as one; the progress
// callback is serialised and sees every step of every run; an error in one run reaches the caller.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>

#include "train/experiment.h"
#include "util/error.h"
#include "util/threads.h"

namespace poslab {
namespace {

ExperimentSpec smallExperiment() {
  ExperimentSpec spec;
  spec.name = "test";
  spec.families = {"rope", "jordan-stabilized"};
  spec.seeds = {3, 4};
  TrainConfig& c = spec.base;
  c.model.heads = 2;
  c.model.layers = 1;
  c.model.dModel = 32;
  c.task.id = "kernel-lm";
  c.task.trainLength = 24;
  c.optim.batch = 8;
  c.run.steps = 12;
  c.run.evalLengths = {24, 48};
  c.run.evalSequences = 8;
  return spec;
}

struct Observed {
  std::vector<RunResult> results;
  std::vector<size_t> done;               // runDone's indices, in call order
  std::map<size_t, long long> stepsSeen;  // run index -> progress calls
  bool overlapped = false;                // two callbacks at once
};

Observed runWithJobs(const ExperimentSpec& spec, int jobs) {
  Observed o;
  std::atomic<int> inside{0};
  o.results = runExperiment(
      spec,
      [&](size_t index, size_t total, const RunResult&, const Snapshot& snap) {
        if (inside.fetch_add(1) != 0) o.overlapped = true;
        EXPECT_EQ(total, 4u);
        ++o.stepsSeen[index];
        EXPECT_EQ(snap.step, o.stepsSeen[index]);  // each run's steps in order
        inside.fetch_sub(1);
      },
      {}, jobs,
      [&](size_t index, size_t total, const RunResult& r) {
        if (inside.fetch_add(1) != 0) o.overlapped = true;
        EXPECT_EQ(total, 4u);
        EXPECT_EQ(o.stepsSeen[index], 12);  // after the run's last step
        EXPECT_TRUE(r.error.empty()) << r.error;
        EXPECT_FALSE(r.eval.empty());  // evaluated before it counts as done
        o.done.push_back(index);
        inside.fetch_sub(1);
      });
  return o;
}

TEST(Experiment, ParallelJobsGiveTheSameResultsInPlanOrder) {
  // One intra-op thread here too, so that one job and two jobs sum in the same order.
  const int before = intraOpThreads();
  setThisThreadIntraOpThreads(1);
  const ExperimentSpec spec = smallExperiment();
  Observed one = runWithJobs(spec, 1);
  Observed two = runWithJobs(spec, 2);
  setThisThreadIntraOpThreads(before);

  EXPECT_EQ(experimentRunCount(spec), 4u);
  ASSERT_EQ(one.results.size(), 4u);
  ASSERT_EQ(two.results.size(), 4u);
  const std::vector<std::pair<std::string, uint64_t>> order = {
      {"rope", 3}, {"rope", 4}, {"jordan-stabilized", 3}, {"jordan-stabilized", 4}};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(two.results[i].family, order[i].first);
    EXPECT_EQ(two.results[i].seed, order[i].second);
    EXPECT_TRUE(two.results[i].error.empty()) << two.results[i].error;
    ASSERT_EQ(two.results[i].eval.size(), 2u);
    for (size_t e = 0; e < 2; ++e) {
      EXPECT_EQ(two.results[i].eval[e].loss, one.results[i].eval[e].loss) << "run " << i;
      EXPECT_EQ(two.results[i].eval[e].accuracy, one.results[i].eval[e].accuracy) << "run " << i;
    }
    EXPECT_EQ(two.stepsSeen[i], 12);
  }
  std::vector<size_t> done = two.done;
  std::sort(done.begin(), done.end());
  EXPECT_EQ(done, (std::vector<size_t>{0, 1, 2, 3}));  // each run reported done once
  EXPECT_EQ(one.done, (std::vector<size_t>{0, 1, 2, 3}));
  // Different seeds really are different runs (a mix-up of results would show here).
  EXPECT_NE(two.results[0].eval[0].loss, two.results[1].eval[0].loss);
  EXPECT_FALSE(two.overlapped);
}

TEST(Experiment, AnErrorInOneRunReachesTheCaller) {
  ExperimentSpec spec = smallExperiment();
  spec.base.run.evalLengths = {24, 1LL << 40};  // no task generates that length
  EXPECT_THROW(runExperiment(spec, nullptr, {}, 2), Error);
}

}  // namespace
}  // namespace poslab
