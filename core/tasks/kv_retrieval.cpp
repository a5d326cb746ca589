// Key-value retrieval (MATH 3.3): recall the value stored after a queried key, at any distance.
//
// Layout, length T:   BOS  body_1 .. body_{T-3}  QUERY  key
//   body: P (key, value) pairs, each two adjacent tokens, at uniformly random non-overlapping
//   places (every arrangement of P pairs among T-3-2P noise tokens equally likely); keys distinct,
//   values uniform (may repeat), noise tokens uniform. The final key is one of the P, uniformly.
// Vocab (N = "noise_tokens", K = "keys", V = "values", P = "pairs"):
//   BOS 0, QUERY 1, noise 2 .. N+1, keys N+2 .. N+K+1, values N+K+2 .. N+K+V+1; vocab N+K+V+2.
// target at T-1: the queried key's value; -1 elsewhere; answer true only at T-1.
// info (B): (T-1) - (position of the queried key in the body), the distance the model must reach.
// T in [2P + 3, 2^20].
#include <ATen/ATen.h>

#include "tasks/task_common.h"
#include "util/error.h"

namespace poslab {

namespace {

constexpr uint64_t kSalt = 0x1d1ec7'1d3e'0003ULL;
constexpr int64_t kBos = 0;
constexpr int64_t kQuery = 1;
constexpr int64_t kFirstNoise = 2;

class KvRetrievalTask : public Task {
 public:
  explicit KvRetrievalTask(const TaskConfig& config) {
    const TaskOptions opts("kv-retrieval", config.options,
                           {{"pairs", 4}, {"noise_tokens", 16}, {"keys", 16}, {"values", 16}});
    pairs_ = opts.getInt("pairs", 1, kMaxTaskLength);
    noise_ = opts.getInt("noise_tokens", 1, kMaxTaskLength);
    keys_ = opts.getInt("keys", 1, kMaxTaskLength);
    values_ = opts.getInt("values", 2, kMaxTaskLength);
    if (keys_ < pairs_)
      throw InvalidArgument(
          "kv-retrieval: keys " + std::to_string(keys_) + " < pairs " + std::to_string(pairs_),
          "keys are distinct, so there must be at least as many key tokens as "
          "pairs");
  }

  std::string id() const override { return "kv-retrieval"; }
  long long vocabSize() const override { return 2 + noise_ + keys_ + values_; }
  long long minLength() const override { return 2 * pairs_ + 3; }
  long long maxLength() const override { return kMaxTaskLength; }

  Batch sample(long long batch, long long length, uint64_t seed) const override {
    checkSampleArgs(*this, batch, length);
    Batch out = emptyBatch(batch, length);
    out.info = at::empty({batch}, at::kLong);
    int64_t* tokens = out.tokens.data_ptr<int64_t>();
    int64_t* targets = out.targets.data_ptr<int64_t>();
    bool* answer = out.answer.data_ptr<bool>();
    int64_t* info = out.info.data_ptr<int64_t>();
    const long long P = pairs_, m = length - 3;  // body length
    const int64_t firstKey = kFirstNoise + noise_, firstValue = firstKey + keys_;
    forEachExample(batch, length, seed, kSalt, [&](long long b, std::mt19937_64& rng) {
      int64_t* tok = tokens + b * length;
      // Distinct keys: partial Fisher-Yates over the key ids.
      std::vector<int64_t> keys(keys_);
      for (long long i = 0; i < keys_; ++i) keys[i] = firstKey + i;
      for (long long i = 0; i < P; ++i)
        std::swap(keys[i], keys[i + static_cast<long long>(uniformBelow(rng, keys_ - i))]);
      const long long queried = static_cast<long long>(uniformBelow(rng, P));
      // The body is m - P items (P pairs, m - 2P noise tokens); choose which items are pairs by
      // selection sampling (Knuth's algorithm S), which makes every arrangement equally likely.
      tok[0] = kBos;
      long long pos = 1, placed = 0, queriedPos = -1;
      const long long items = m - P;
      for (long long i = 0; i < items; ++i) {
        const bool isPair = static_cast<long long>(uniformBelow(rng, items - i)) < P - placed;
        if (isPair) {
          if (placed == queried) queriedPos = pos;
          tok[pos++] = keys[placed++];
          tok[pos++] = firstValue + static_cast<int64_t>(uniformBelow(rng, values_));
        } else {
          tok[pos++] = kFirstNoise + static_cast<int64_t>(uniformBelow(rng, noise_));
        }
      }
      tok[length - 2] = kQuery;
      tok[length - 1] = keys[queried];
      targets[b * length + length - 1] = tok[queriedPos + 1];
      answer[b * length + length - 1] = true;
      info[b] = (length - 1) - queriedPos;
    });
    return out;
  }

 private:
  long long pairs_ = 4;
  long long noise_ = 16;
  long long keys_ = 16;
  long long values_ = 16;
};

}  // namespace

std::unique_ptr<Task> makeKvRetrievalTask(const TaskConfig& config) {
  return std::make_unique<KvRetrievalTask>(config);
}

}  // namespace poslab
