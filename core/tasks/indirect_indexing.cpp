// Indirect indexing (PoPE paper; MATH 3.1): find the source character in a sequence of distinct
// characters, then step a signed offset from it. Content match and position match must be
// learned separately. Example: 4 to the left of 'Z' in "ABSCOPZG" is 'S'.
//
// Layout, length T = n + 3:   c_0 .. c_{n-1}  SEP  src  OFF
//   c_i   distinct characters, drawn without replacement from 0..A-1   (A = option "alphabet")
//   SEP   token A
//   src   c_p for a uniform position p in [0, n)
//   OFF   offset o in [-K, K] \ {0} (K = option "max_offset"), uniform among those with
//         0 <= p + o < n; token A + 1 + (o + K) for o < 0, A + K + o for o > 0, so the 2K offset
//         tokens are A+1 .. A+2K in the order -K .. -1, 1 .. K
// vocab = A + 1 + 2K. targets: -1 except at T-1, where it is c_{p+o}; answer true only at T-1.
// Lengths: n >= 2K + 1 (some source then admits every offset), n <= A: T in [2K + 4, A + 3].
#include "tasks/indirect_indexing.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <numeric>

#include "tasks/task_common.h"
#include "util/error.h"

namespace poslab {

namespace {

constexpr uint64_t kSalt = 0x1d1ec7'1d3e'0001ULL;

class IndirectIndexingTask : public Task {
 public:
  explicit IndirectIndexingTask(const TaskConfig& config) {
    const TaskOptions opts("indirect-indexing", config.options,
                           {{"alphabet", 128}, {"max_offset", 8}});
    alphabet_ = opts.getInt("alphabet", 8, kMaxTaskLength);
    maxOffset_ = opts.getInt("max_offset", 1, kMaxTaskLength);
    if (alphabet_ < 2 * maxOffset_ + 1)
      throw InvalidArgument("indirect-indexing: alphabet " + std::to_string(alphabet_) +
                                " is too small for max_offset " + std::to_string(maxOffset_),
                            "the sequence needs at least 2 max_offset + 1 distinct characters");
  }

  std::string id() const override { return "indirect-indexing"; }
  long long vocabSize() const override { return alphabet_ + 1 + 2 * maxOffset_; }
  long long minLength() const override { return 2 * maxOffset_ + 4; }
  long long maxLength() const override { return alphabet_ + 3; }

  Batch sample(long long batch, long long length, uint64_t seed) const override {
    checkSampleArgs(*this, batch, length);
    Batch out = emptyBatch(batch, length);
    int64_t* tokens = out.tokens.data_ptr<int64_t>();
    int64_t* targets = out.targets.data_ptr<int64_t>();
    bool* answer = out.answer.data_ptr<bool>();
    const long long n = length - 3, K = maxOffset_, A = alphabet_;
    forEachExample(batch, length, seed, kSalt, [&](long long b, std::mt19937_64& rng) {
      int64_t* tok = tokens + b * length;
      // Partial Fisher-Yates: the first n entries become n distinct characters.
      std::vector<int64_t> pool(A);
      std::iota(pool.begin(), pool.end(), 0);
      for (long long i = 0; i < n; ++i) {
        const long long j = i + static_cast<long long>(uniformBelow(rng, A - i));
        std::swap(pool[i], pool[j]);
        tok[i] = pool[i];
      }
      const long long p = static_cast<long long>(uniformBelow(rng, n));
      // Valid offsets: o in [lo, hi] \ {0}, lo = max(-K, -p), hi = min(K, n-1-p); n >= 2 so the
      // set is never empty.
      const long long lo = std::max(-K, -p), hi = std::min(K, n - 1 - p);
      // hi - lo nonzero values: draw among lo .. hi-1, then shift 0 .. hi-1 up past 0.
      long long o = lo + static_cast<long long>(uniformBelow(rng, hi - lo));
      if (o >= 0) ++o;
      tok[n] = A;  // SEP
      tok[n + 1] = tok[p];
      tok[n + 2] = o < 0 ? A + 1 + (o + K) : A + K + o;
      targets[b * length + length - 1] = tok[p + o];
      answer[b * length + length - 1] = true;
    });
    return out;
  }

 private:
  long long alphabet_ = 128;
  long long maxOffset_ = 8;
};

// The options as the task reads them (defaults, ranges and messages in one place).
std::pair<long long, long long> alphabetAndOffset(const TaskConfig& config) {
  const TaskOptions opts("indirect-indexing", config.options,
                         {{"alphabet", 128}, {"max_offset", 8}});
  return {opts.getInt("alphabet", 8, kMaxTaskLength), opts.getInt("max_offset", 1, kMaxTaskLength)};
}

}  // namespace

long long indirectIndexingAlphabet(const TaskConfig& config) {
  return alphabetAndOffset(config).first;
}
long long indirectIndexingMaxOffset(const TaskConfig& config) {
  return alphabetAndOffset(config).second;
}

IndirectIndexingExample decodeIndirectIndexing(const TaskConfig& config,
                                               const std::vector<long long>& tokens,
                                               long long prediction) {
  const auto [A, K] = alphabetAndOffset(config);
  const long long T = static_cast<long long>(tokens.size()), n = T - 3;
  auto bad = [&](const std::string& what) {
    return InvalidArgument("indirect-indexing: a sequence of " + std::to_string(T) +
                           " tokens does not fit the layout: " + what);
  };
  if (n < 2) throw bad("too short");
  if (tokens[n] != A)
    throw bad("no separator (token " + std::to_string(A) + ") at " + std::to_string(n));
  IndirectIndexingExample e;
  e.characters.assign(tokens.begin(), tokens.begin() + n);
  for (long long c : e.characters)
    if (c < 0 || c >= A)
      throw bad("character token " + std::to_string(c) + " is not below the alphabet");
  e.source = tokens[n + 1];
  const auto at = std::find(e.characters.begin(), e.characters.end(), e.source);
  if (at == e.characters.end())
    throw bad("the source " + std::to_string(e.source) + " is not in the sequence");
  e.sourcePosition = at - e.characters.begin();
  // Offset tokens A+1 .. A+2K stand for -K .. -1, 1 .. K.
  const long long off = tokens[n + 2] - (A + 1);
  if (off < 0 || off >= 2 * K)
    throw bad("offset token " + std::to_string(tokens[n + 2]) + " out of range");
  e.offset = off < K ? off - K : off - K + 1;
  const long long target = e.sourcePosition + e.offset;
  if (target < 0 || target >= n) throw bad("the offset leads outside the sequence");
  e.truth = e.characters[static_cast<size_t>(target)];
  e.prediction = prediction;
  return e;
}

namespace {
std::vector<TaskOptionSpec> indirectIndexingOptionSpecs(const TaskConfig& /*config*/) {
  constexpr double kMaxLen = static_cast<double>(kMaxTaskLength);
  return {{"alphabet", true, 8, kMaxLen, 128, false,
           "A: distinct characters to draw from; sequences hold up to A of them (T <= A + 3)"},
          {"max_offset", true, 1, kMaxLen, 8, false,
           "K: offsets from -K to K (not 0); needs A >= 2K + 1 and T >= 2K + 4"}};
}

std::unique_ptr<Task> makeIndirectIndexingTask(const TaskConfig& config) {
  return std::make_unique<IndirectIndexingTask>(config);
}
}  // namespace

const TaskInfo& indirectIndexingTaskInfo() {
  static const TaskInfo info = [] {
    TaskInfo i;
    i.id = "indirect-indexing";
    i.make = makeIndirectIndexingTask;
    i.optionSpecs = indirectIndexingOptionSpecs;
    i.capabilities.decodedExamples = true;
    return i;
  }();
  return info;
}

}  // namespace poslab
