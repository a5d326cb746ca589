// Shared plumbing of the task generators (task_*.cpp): option parsing, the seeded RNG helpers and
// the factories the registry (task_registry.cpp) dispatches to. Internal to core/tasks.
//
// Determinism: each example b of a batch draws from its own std::mt19937_64, seeded by
// exampleSeed(seed, task salt, length, b). mt19937_64's output is fixed by the C++ standard, and
// uniformBelow / uniform01 below are written out here (the std:: distributions are not specified
// bit for bit and differ between standard libraries), so a batch is identical on every build and
// device, example b does not depend on the batch size, and the examples can be generated in
// parallel.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tasks/task.h"
#include "tasks/task_info.h"

namespace poslab {

// Lengths beyond any the app evaluates (32768) but small enough that a (B, T) batch stays sane.
constexpr long long kMaxTaskLength = 1LL << 20;

// The options of one task: known names with defaults; construction throws InvalidArgument for a
// name that is not known (listing the known ones) or a value that is not finite.
class TaskOptions {
 public:
  TaskOptions(const std::string& taskId, const std::map<std::string, double>& given,
              std::vector<std::pair<std::string, double>> known);
  double get(const std::string& name) const;
  // The option as an integer in [lo, hi]; throws InvalidArgument otherwise.
  long long getInt(const std::string& name, long long lo, long long hi) const;
  // The option as a finite double in [lo, hi].
  double getReal(const std::string& name, double lo, double hi) const;

 private:
  std::string taskId_;
  std::map<std::string, double> values_;
};

// splitmix64 mix of the batch seed, a per-task constant, the length and the example index.
uint64_t exampleSeed(uint64_t seed, uint64_t taskSalt, long long length, long long example);
// Uniform integer in [0, n), n >= 1, by rejection (unbiased).
uint64_t uniformBelow(std::mt19937_64& rng, uint64_t n);
// Uniform double in [0, 1) with 53 random bits.
double uniform01(std::mt19937_64& rng);

// Throws InvalidArgument unless batch >= 1 and length in [task.minLength(), task.maxLength()].
void checkSampleArgs(const Task& task, long long batch, long long length);

// Calls fill(b, rng) for every example b with its own RNG, in parallel over examples.
void forEachExample(long long batch, long long length, uint64_t seed, uint64_t taskSalt,
                    const std::function<void(long long b, std::mt19937_64& rng)>& fill);

// sqrt(sum_{d=1}^{trainLength-1} K(d)^2): the norm MATH 3.0 divides kernel-LM kernels by, the same
// at every evaluation length (the sector teachers normalise over the current lags instead).
double trainingLagNorm(const std::function<double(double)>& kernel, long long trainLength);

// Empty (B, T) tensors for a batch: tokens int64, targets int64 filled with -1, answer all false.
Batch emptyBatch(long long batch, long long length);

// Signed lag-kernel classification shared by kernel-lm and sector-teacher: tokens are bits at
// positions 0..T-2 and QUERY at T-1; the label at T-1 is 1[score > 0] (or Bernoulli(sigmoid(3 s))
// when stochastic), score = sum_{d=1}^{T-1} x_{T-1-d} weight(d), x = 2 bit - 1.
// weights[d] for d = 0..T-1 (index 0 unused). |score| <= kTieTolerance * sum_d |weights[d]| counts
// as an exact tie (score 0, label 0).
constexpr long long kBitQueryToken = 2;
constexpr double kTieTolerance = 1e-12;
void fillBitsQueryExample(std::mt19937_64& rng, const std::vector<double>& weights, bool stochastic,
                          int64_t* tokens, int64_t* targets, bool* answer, long long length);
// A (batch, length) batch of such examples, each with its own RNG (forEachExample, taskSalt).
Batch sampleBitsQueryBatch(const Task& task, const std::vector<double>& weights, bool stochastic,
                           long long batch, long long length, uint64_t seed, uint64_t taskSalt);

// Each task's declaration, in its own file; task_registry.cpp lists them.
const TaskInfo& indirectIndexingTaskInfo();
const TaskInfo& kernelLmTaskInfo();
const TaskInfo& kvRetrievalTaskInfo();
const TaskInfo& sectorTeacherTaskInfo();
const TaskInfo& byteLmTaskInfo();

}  // namespace poslab
