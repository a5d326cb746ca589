// Soak of core's TrainingWorker (issue #17 section 6): N cycles (default 1000) of
//   construct -> play (until a step is reported) -> pause -> step once -> reset -> stop -> destroy
// on a tiny model, with no crash, no hang (every wait is bounded), no leak (LeakSanitizer under
// scripts/asan.sh) and flat memory (soak_support.h: live heap and RSS growth from cycle N/10 to N
// under the margin). The ordinary ctest runs a short version (soak.worker: 50 cycles).
//   poslab_worker_soak [--cycles N]
#include <atomic>
#include <cstdio>
#include <string>

#include "soak_support.h"
#include "test_support.h"
#include "train/training_worker.h"
#include "util/threads.h"

namespace {

poslab::TrainConfig tinyRun() {
  return poslab::testing::tinyKernelLmRun("rope", /*heads=*/2, /*dModel=*/16, /*trainLength=*/8,
                                          /*batch=*/2, /*steps=*/1000000);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace poslab;
  using soak::waitFor;
  const int cycles = soak::cyclesFromArgs(argc, argv, 1000);
  setThisThreadIntraOpThreads(1);
  soak::MemoryTrack memory(cycles);
  std::atomic<long long> snapshots{0};
  for (int cycle = 1; cycle <= cycles; ++cycle) {
    TrainingWorker worker(tinyRun(), [&](const Snapshot&) { ++snapshots; });
    worker.play();
    waitFor([&] { return worker.stepCount() >= 1; }, "the first step after play", cycle);
    worker.pause();
    // The step in flight at pause() finishes; then the worker waits.
    long long settled = -1;
    waitFor(
        [&] {
          const long long now = worker.stepCount();
          const bool still = now == settled;
          settled = now;
          return still && !worker.isPlaying();
        },
        "the worker to settle after pause", cycle,
        [] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); });
    worker.stepOnce();
    waitFor([&] { return worker.stepCount() >= settled + 1; }, "the single step", cycle);
    worker.reset();
    waitFor([&] { return worker.stepCount() == 0; }, "the reset", cycle);
    worker.stop();
    memory.afterCycle(cycle);
    if (cycle % 100 == 0) {
      std::printf("cycle %d: %lld snapshots so far, %s\n", cycle, snapshots.load(),
                  soak::MemoryTrack::nowText().c_str());
      std::fflush(stdout);
    }
  }
  if (snapshots.load() < 2LL * cycles) soak::fail("too few snapshots reported");
  memory.check("worker soak");
  std::printf("worker soak: %d cycles passed\n", cycles);
  return 0;
}
