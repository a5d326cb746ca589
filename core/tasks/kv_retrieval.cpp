// Key-value retrieval (Jordan-RoPE paper's needle retrieval; docs/MATH.md 3.3): recall the value
// stored after a queried key, generated as the reference code does (ybzhang-nxu/jordan_rope
// jordan_rope/data.py generate_retrieval_batch; scripts/run_retrieval.py;
// configs/full_research.yaml).
//
// Layout, length T:   BOS  body_1 .. body_{T-3}  QUERY  key
// Defaults: the reference config's 32 pairs, 128 keys, 128 values (retrieval block).
// Vocab (K = "keys", V = "values", P = "pairs"): PAD 0, BOS 1, QUERY 2, NOISE 3, keys 4 .. K+3,
//   values K+4 .. K+V+3; vocab K+V+4 (the reference's retrieval_vocab_size).
// Pairs: P distinct keys, values uniform (may repeat); a pair starting at s holds its key at s and
//   its value at s+1. The queried pair starts at s uniform in [1, T-5] (randrange(1, T-4)), or at
//   max(1, min(T-5, T-1-distance)) when sampled at a distance. Each other pair takes a start drawn
//   uniformly among the starts in [1, T-5] whose two places are still free (the same law as the
//   reference's first fitting start in a shuffled [1, T-5]). So T-3 never holds a pair.
// Noise: every body place without a pair is uniform over the four tokens PAD, BOS, QUERY, NOISE
//   (the reference's torch.randint(0, 4)): the filler includes copies of BOS and QUERY.
// target at T-1: the queried key's value; -1 elsewhere; answer true only at T-1.
// info (B): T-1-s, the distance from the final key back to the stored key (the reference's
//   distances). T in [max(8, 3P+3), 2^20]: from 3P+3 on every pair always finds a free start
//   (each placed pair rules out at most 3 of the T-5 starts), where the reference may give up.
// Accuracy against distance: at the reference's distance_points 64, 128, ..., 8192, those below
//   T-2 (scripts/run_retrieval.py evaluate).
#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "tasks/task_common.h"
#include "util/error.h"

namespace poslab {

namespace {

constexpr uint64_t kSalt = 0x1d1ec7'1d3e'0003ULL;
constexpr int64_t kBos = 1;
constexpr int64_t kQuery = 2;
constexpr int64_t kSpecialTokens = 4;  // PAD, BOS, QUERY, NOISE: also the noise alphabet
constexpr int64_t kFirstKey = 4;
// configs/full_research.yaml retrieval.distance_points.
constexpr long long kDistancePoints[] = {64, 128, 256, 512, 1024, 2048, 4096, 8192};

class KvRetrievalTask : public Task {
 public:
  explicit KvRetrievalTask(const TaskConfig& config) {
    const TaskOptions opts("kv-retrieval", config.options,
                           {{"pairs", 32}, {"keys", 128}, {"values", 128}});
    pairs_ = opts.getInt("pairs", 1, kMaxTaskLength / 3 - 1);
    keys_ = opts.getInt("keys", 1, kMaxTaskLength);
    values_ = opts.getInt("values", 2, kMaxTaskLength);
    if (keys_ < pairs_)
      throw InvalidArgument(
          "kv-retrieval: keys " + std::to_string(keys_) + " < pairs " + std::to_string(pairs_),
          "keys are distinct, so there must be at least as many key tokens as pairs");
  }

  std::string id() const override { return "kv-retrieval"; }
  long long vocabSize() const override { return kSpecialTokens + keys_ + values_; }
  long long minLength() const override { return std::max<long long>(8, 3 * pairs_ + 3); }
  long long maxLength() const override { return kMaxTaskLength; }

  std::vector<long long> accuracyDistances(long long length) const override {
    std::vector<long long> out;
    for (long long d : kDistancePoints)
      if (d < length - 2) out.push_back(d);
    return out;
  }

  Batch sample(long long batch, long long length, uint64_t seed) const override {
    return generate(batch, length, /*distance=*/-1, seed);
  }

  Batch sampleAtDistance(long long batch, long long length, long long distance,
                         uint64_t seed) const override {
    if (distance < 1)
      throw InvalidArgument("kv-retrieval: distance " + std::to_string(distance) +
                            " must be positive");
    return generate(batch, length, distance, seed);
  }

 private:
  // distance < 0: the queried pair's start is uniform; else as near T-1-distance as fits.
  Batch generate(long long batch, long long length, long long distance, uint64_t seed) const {
    checkSampleArgs(*this, batch, length);
    Batch out = emptyBatch(batch, length);
    out.info = at::empty({batch}, at::kLong);
    int64_t* tokens = out.tokens.data_ptr<int64_t>();
    int64_t* targets = out.targets.data_ptr<int64_t>();
    bool* answer = out.answer.data_ptr<bool>();
    int64_t* info = out.info.data_ptr<int64_t>();
    const long long T = length, lastStart = T - 5, P = pairs_;
    const int64_t firstValue = kFirstKey + keys_;
    // A distinct salt per distance, so that the fixed-distance batches are not the random ones.
    const uint64_t salt = kSalt ^ (distance < 0 ? 0 : static_cast<uint64_t>(distance) << 32);
    forEachExample(batch, length, seed, salt, [&](long long b, std::mt19937_64& rng) {
      int64_t* tok = tokens + b * T;
      std::vector<char> used(T, 0);
      used[0] = used[T - 2] = used[T - 1] = 1;
      // Distinct keys: partial Fisher-Yates over the key ids; keys[0] is the queried one.
      std::vector<int64_t> keys(keys_);
      for (long long i = 0; i < keys_; ++i) keys[i] = kFirstKey + i;
      for (long long i = 0; i < P; ++i)
        std::swap(keys[i], keys[i + static_cast<long long>(uniformBelow(rng, keys_ - i))]);
      const long long target = distance < 0
                                   ? 1 + static_cast<long long>(uniformBelow(rng, lastStart))
                                   : std::max(1LL, std::min(lastStart, T - 1 - distance));
      const auto place = [&](long long s, int64_t key) {
        used[s] = used[s + 1] = 1;
        tok[s] = key;
        tok[s + 1] = firstValue + static_cast<int64_t>(uniformBelow(rng, values_));
      };
      place(target, keys[0]);
      for (long long i = 1; i < P; ++i) {
        long long s;
        do s = 1 + static_cast<long long>(uniformBelow(rng, lastStart));
        while (used[s] || used[s + 1]);
        place(s, keys[i]);
      }
      tok[0] = kBos;
      for (long long t = 1; t < T - 2; ++t)
        if (!used[t]) tok[t] = static_cast<int64_t>(uniformBelow(rng, kSpecialTokens));
      tok[T - 2] = kQuery;
      tok[T - 1] = keys[0];
      targets[b * T + T - 1] = tok[target + 1];
      answer[b * T + T - 1] = true;
      info[b] = T - 1 - target;
    });
    return out;
  }

  long long pairs_ = 32;
  long long keys_ = 128;
  long long values_ = 128;
};

std::vector<TaskOptionSpec> kvRetrievalOptionSpecs(const TaskConfig& /*config*/) {
  constexpr double kMaxLen = static_cast<double>(kMaxTaskLength);
  return {{"pairs", true, 1, std::floor(kMaxLen / 3) - 1, 32, false,
           "P: key-value pairs stored in each sequence (needs T >= 3P + 3)"},
          {"keys", true, 1, kMaxLen, 128, false, "K: distinct key tokens (>= pairs)"},
          {"values", true, 2, kMaxLen, 128, false, "V: distinct value tokens"}};
}

std::unique_ptr<Task> makeKvRetrievalTask(const TaskConfig& config) {
  return std::make_unique<KvRetrievalTask>(config);
}

}  // namespace

const TaskInfo& kvRetrievalTaskInfo() {
  static const TaskInfo info = [] {
    TaskInfo i;
    i.id = "kv-retrieval";
    i.make = makeKvRetrievalTask;
    i.optionSpecs = kvRetrievalOptionSpecs;
    i.defaultTrainLength = 256;  // 32 pairs fill a quarter of the body
    i.capabilities.distanceAccuracy = true;
    return i;
  }();
  return info;
}

}  // namespace poslab
