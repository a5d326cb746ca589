#include "tasks/task_common.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cmath>
#include <sstream>

#include "util/error.h"
#include "util/number_text.h"

namespace poslab {

namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

TaskOptions::TaskOptions(const std::string& taskId, const std::map<std::string, double>& given,
                         std::vector<std::pair<std::string, double>> known)
    : taskId_(taskId) {
  for (const auto& [name, value] : known) values_[name] = value;
  for (const auto& [name, value] : given) {
    if (!values_.count(name)) {
      std::string list;
      for (const auto& [k, v] : known) list += (list.empty() ? "" : ", ") + k;
      throw InvalidArgument("task '" + taskId + "' has no option '" + name + "'",
                            list.empty() ? "it takes no options" : "known options: " + list);
    }
    if (!std::isfinite(value))
      throw InvalidArgument("task '" + taskId + "' option '" + name + "' = " + formatNumber(value) +
                            " is not finite");
    values_[name] = value;
  }
}

double TaskOptions::get(const std::string& name) const {
  return values_.at(name);
}

long long TaskOptions::getInt(const std::string& name, long long lo, long long hi) const {
  const double v = get(name);
  if (v != std::floor(v) || v < static_cast<double>(lo) || v > static_cast<double>(hi))
    throw InvalidArgument("task '" + taskId_ + "' option '" + name + "' = " + formatNumber(v) +
                          " must be an integer in [" + std::to_string(lo) + ", " +
                          std::to_string(hi) + "]");
  return static_cast<long long>(v);
}

double TaskOptions::getReal(const std::string& name, double lo, double hi) const {
  const double v = get(name);
  if (!(v >= lo && v <= hi))
    throw InvalidArgument("task '" + taskId_ + "' option '" + name + "' = " + formatNumber(v) +
                          " must lie in [" + formatNumber(lo) + ", " + formatNumber(hi) + "]");
  return v;
}

uint64_t exampleSeed(uint64_t seed, uint64_t taskSalt, long long length, long long example) {
  uint64_t h = splitmix64(seed ^ taskSalt);
  h = splitmix64(h ^ static_cast<uint64_t>(length));
  return splitmix64(h ^ static_cast<uint64_t>(example));
}

uint64_t uniformBelow(std::mt19937_64& rng, uint64_t n) {
  // Reject the top partial block of 2^64 so every residue is equally likely.
  const uint64_t limit = UINT64_MAX - (UINT64_MAX % n + 1) % n;
  uint64_t x;
  do x = rng();
  while (x > limit);
  return x % n;
}

double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

void checkSampleArgs(const Task& task, long long batch, long long length) {
  if (batch < 1)
    throw InvalidArgument("task '" + task.id() + "': batch " + std::to_string(batch) +
                          " must be at least 1");
  if (length < task.minLength() || length > task.maxLength())
    throw InvalidArgument("task '" + task.id() + "': length " + std::to_string(length) +
                              " is outside the allowed range [" + std::to_string(task.minLength()) +
                              ", " + std::to_string(task.maxLength()) + "]",
                          "pick a length in that range or change the task options");
}

void forEachExample(long long batch, long long length, uint64_t seed, uint64_t taskSalt,
                    const std::function<void(long long b, std::mt19937_64& rng)>& fill) {
  at::parallel_for(0, batch, /*grain_size=*/1, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      std::mt19937_64 rng(exampleSeed(seed, taskSalt, length, b));
      fill(b, rng);
    }
  });
}

double trainingLagNorm(const std::function<double(double)>& kernel, long long trainLength) {
  double ss = 0;
  for (long long d = 1; d < trainLength; ++d) {
    const double k = kernel(static_cast<double>(d));
    ss += k * k;
  }
  return std::sqrt(ss);
}

Batch emptyBatch(long long batch, long long length) {
  Batch out;
  out.tokens = at::empty({batch, length}, at::kLong);
  out.targets = at::full({batch, length}, -1, at::kLong);
  out.answer = at::zeros({batch, length}, at::kBool);
  return out;
}

void fillBitsQueryExample(std::mt19937_64& rng, const std::vector<double>& weights, bool stochastic,
                          int64_t* tokens, int64_t* targets, bool* answer, long long length) {
  const long long q = length - 1;  // QUERY position
  double score = 0, scale = 0;
  for (long long t = 0; t < q; ++t) {
    const int64_t bit = static_cast<int64_t>(rng() >> 63);
    tokens[t] = bit;
    score += (2.0 * bit - 1.0) * weights[q - t];  // lag d = q - t
    scale += std::abs(weights[q - t]);
  }
  tokens[q] = kBitQueryToken;
  // Kernels on a rational grid (affine d/L, phase at omega = pi/4, ...) can cancel exactly; such
  // a tie is labelled 0 whatever the last bits of the rounding say, so that every build (FMA or
  // not, any summation order) gives the same label.
  if (std::abs(score) <= kTieTolerance * scale) score = 0;
  bool label = score > 0;
  if (stochastic) label = uniform01(rng) < 1.0 / (1.0 + std::exp(-3.0 * score));
  targets[q] = label ? 1 : 0;
  answer[q] = true;
}

Batch sampleBitsQueryBatch(const Task& task, const std::vector<double>& weights, bool stochastic,
                           long long batch, long long length, uint64_t seed, uint64_t taskSalt) {
  checkSampleArgs(task, batch, length);
  Batch out = emptyBatch(batch, length);
  int64_t* tokens = out.tokens.data_ptr<int64_t>();
  int64_t* targets = out.targets.data_ptr<int64_t>();
  bool* answer = out.answer.data_ptr<bool>();
  forEachExample(batch, length, seed, taskSalt, [&](long long b, std::mt19937_64& rng) {
    fillBitsQueryExample(rng, weights, stochastic, tokens + b * length, targets + b * length,
                         answer + b * length, length);
  });
  return out;
}

}  // namespace poslab
