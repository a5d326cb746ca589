// A sweep stopped in the middle of its runs (RunCheckpointing::stop, what SIGINT and SIGTERM set
// in the CLI) continues each run from its checkpoint in OUT/partial when it is started again, and
// ends with the numbers of an uninterrupted sweep, bit for bit: stopped at pseudo-random steps,
// with one job and with two. (The CLI's kill -9 and SIGTERM cases: tests/cli/test_sweep_resume.sh.)
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>

#include "dist/distributed_sweep.h"
#include "train/experiment.h"
#include "train/run_result_json.h"
#include "util/threads.h"

namespace poslab {
namespace {

namespace fs = std::filesystem;

ExperimentSpec smallSweep() {
  ExperimentSpec spec;
  spec.name = "resume-test";
  // A shear family with learned gamma and eta (AdamW state on position parameters), and RoPE.
  spec.families = {"jordan-stabilized-abs", "rope"};
  spec.seeds = {5, 6};
  TrainConfig& c = spec.base;
  c.model.heads = 2;
  c.model.layers = 2;
  c.model.dModel = 32;
  c.task.id = "kernel-lm";
  c.task.trainLength = 24;
  c.optim.batch = 8;
  c.optim.warmup = 3;  // the schedule's warm-up and cosine both cross the stops
  c.run.steps = 17;
  c.run.evalLengths = {24, 48};
  c.run.evalSequences = 8;
  return spec;
}

fs::path freshDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() /
                       ("poslab-sweep-resume-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

// The run files' results without their wall-clock fields.
std::map<std::string, nlohmann::json> resultsIn(const fs::path& out) {
  std::map<std::string, nlohmann::json> results;
  for (const auto& entry : fs::directory_iterator(out / "runs")) {
    std::ifstream in(entry.path());
    nlohmann::json doc = nlohmann::json::parse(in);
    doc["result"].erase("seconds");
    doc["result"].erase("tokens_per_second");
    results[entry.path().filename().string()] = doc["result"];
  }
  return results;
}

// Runs the sweep into `out`, stopping it whenever a run reaches one of `stopAt`'s steps (a step
// number is used once), then starting it again, until it finishes. Returns how often it stopped.
int sweepWithStops(const ExperimentSpec& spec, const fs::path& out, int jobs,
                   std::vector<long long> stopAt, long long checkpointEvery) {
  int stops = 0;
  for (int attempt = 0; attempt < 50; ++attempt) {
    std::atomic<bool> stop{false};
    dist::SweepOptions options;
    options.outDir = out.string();
    options.checkpointEvery = checkpointEvery;
    options.stop = &stop;
    try {
      dist::runSweep(
          spec,
          [&](size_t, size_t, const RunResult&, const Snapshot& snap) {
            auto it = std::find(stopAt.begin(), stopAt.end(), snap.step);
            if (it != stopAt.end()) {
              stopAt.erase(it);
              stop = true;
            }
          },
          {}, jobs, {}, options);
      return stops;
    } catch (const SweepStopped& stopped) {
      ++stops;
      for (const auto& s : stopped.saved) {
        EXPECT_TRUE(fs::exists(s.path)) << s.path;
        EXPECT_GT(s.step, 0);
      }
    }
  }
  ADD_FAILURE() << "the sweep never finished";
  return stops;
}

class SweepResume : public ::testing::TestWithParam<int> {};  // jobs

TEST_P(SweepResume, StoppedAtRandomStepsEndsAsAnUninterruptedSweepBitForBit) {
  const int jobs = GetParam();
  const int before = intraOpThreads();
  setThisThreadIntraOpThreads(jobs);  // one intra-op thread per job either way
  const ExperimentSpec spec = smallSweep();
  const fs::path whole = freshDir("whole-" + std::to_string(jobs));
  const fs::path stopped = freshDir("stopped-" + std::to_string(jobs));
  EXPECT_EQ(sweepWithStops(spec, whole, jobs, {}, 4), 0);

  std::mt19937 rng(1234 + jobs);  // fixed: a failure names steps that reproduce it
  std::uniform_int_distribution<long long> step(1, spec.base.run.steps - 1);
  std::vector<long long> stopAt;
  for (int i = 0; i < 6; ++i) stopAt.push_back(step(rng));
  // Every 4 steps a checkpoint; a stop between them saves the step it is at.
  const int stops = sweepWithStops(spec, stopped, jobs, stopAt, 4);
  setThisThreadIntraOpThreads(before);
  EXPECT_GE(stops, 3);

  const auto a = resultsIn(whole);
  const auto b = resultsIn(stopped);
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(b.size(), 4u);
  for (const auto& [name, result] : a) {
    ASSERT_TRUE(b.count(name)) << name;
    EXPECT_EQ(b.at(name), result) << name << " (stops at " << ::testing::PrintToString(stopAt)
                                  << ")";
  }
  EXPECT_FALSE(fs::exists(stopped / "partial") && !fs::is_empty(stopped / "partial"))
      << "a finished sweep leaves no run checkpoint behind";
  fs::remove_all(whole);
  fs::remove_all(stopped);
}

INSTANTIATE_TEST_SUITE_P(Jobs, SweepResume, ::testing::Values(1, 2));

TEST(SweepResumeRefusal, ACheckpointOfAnotherSetupIsRefusedNamingIt) {
  ExperimentSpec spec = smallSweep();
  spec.families = {"rope"};
  spec.seeds = {5};
  const fs::path out = freshDir("other");
  std::atomic<bool> stop{false};
  dist::SweepOptions options;
  options.outDir = out.string();
  options.checkpointEvery = 100;
  options.stop = &stop;
  EXPECT_THROW(dist::runSweep(
                   spec,
                   [&](size_t, size_t, const RunResult&, const Snapshot& snap) {
                     if (snap.step == 5) stop = true;
                   },
                   {}, 1, {}, options),
               SweepStopped);
  spec.base.optim.lr *= 2;  // another setup, same run file names
  stop = false;
  try {
    dist::runSweep(spec, {}, {}, 1, {}, options);
    ADD_FAILURE() << "a checkpoint of another setup was used";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("partial/001-rope-seed5.pt"), std::string::npos)
        << e.what();
  }
  fs::remove_all(out);
}

}  // namespace
}  // namespace poslab
