// Byte-level LM task (docs/MATH.md 3.5).
//
// Layout, length T: a random window w_0 .. w_T of T+1 consecutive corpus bytes;
//   tokens = w_0 .. w_{T-1}, targets = w_1 .. w_T (loss at every position); vocab 256.
// No accuracy (answer all false, hasAccuracy() false), no info.
// Corpus: config.textFile, or when empty the concatenation, in name order, of the 43 text files
// that Debian's fortunes-min and fortunes install in /usr/share/games/fortunes/ (other fortune
// packages' files there are not used, so the corpus is the same on every machine). It must
// be valid UTF-8 and non-empty. The last 10% of its bytes are held out: option "split" 0 = train
// (the first 90%, default), 1 = eval (the last 10%). T in [1, split size - 1].
#include "tasks/byte_lm.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <vector>

#include "io/input_file.h"
#include "tasks/task_common.h"
#include "util/cancellation.h"
#include "util/error.h"

namespace poslab {

namespace {

constexpr uint64_t kSalt = 0x1d1ec7'1d3e'0005ULL;
constexpr double kEvalFraction = 0.1;  // the held-out tail of the corpus
const char* const kFortunesDir = "/usr/share/games/fortunes";
// The text files of Debian's fortunes-min and fortunes packages (2.7 MB of English in Debian 12),
// in name order, concatenated in this order. Other fortune packages (fortunes-off, translations)
// add files to the same folder; naming the files keeps the corpus the same on every machine.
constexpr const char* kDefaultCorpusFiles[] = {
    "art",           "ascii-art",  "computers", "cookie",       "debian",   "definitions",
    "disclaimer",    "drugs",      "education", "ethnic",       "food",     "fortunes",
    "goedel",        "humorists",  "kids",      "knghtbrd",     "law",      "linux",
    "linuxcookie",   "literature", "love",      "magic",        "medicine", "men-women",
    "miscellaneous", "news",       "paradoxum", "people",       "perl",     "pets",
    "platitudes",    "politics",   "pratchett", "riddles",      "science",  "songs-poems",
    "sports",        "startrek",   "tao",       "translate-me", "wisdom",   "work",
    "zippy"};

std::string readFile(const std::filesystem::path& path) {
  return readInputFile(path.string(), "byte-lm: text file", kMaxTextInputBytes);
}

// Offset of the first byte that breaks UTF-8 (overlong forms, surrogates and code points above
// U+10FFFF included), or -1 when the whole string is valid.
long long firstInvalidUtf8(const std::string& s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  size_t nextCheck = 0;
  while (i < n) {
    if (i >= nextCheck) {  // every MiB: a worker told to stop does not check the rest first
      throwIfCancelled();
      nextCheck = i + (1 << 20);
    }
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;                 // bytes in this sequence
    unsigned lo = 0x80, hi = 0xBF;  // allowed range of its second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;  // overlong
      if (c == 0xED) hi = 0x9F;  // surrogates U+D800..U+DFFF
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;  // overlong
      if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
    } else {
      return static_cast<long long>(i);  // continuation byte, C0/C1 overlong lead, F5..FF
    }
    if (i + len > n) return static_cast<long long>(i);
    if (p[i + 1] < lo || p[i + 1] > hi) return static_cast<long long>(i);
    for (size_t k = 2; k < len; ++k)
      if (p[i + k] < 0x80 || p[i + k] > 0xBF) return static_cast<long long>(i);
    i += len;
  }
  return -1;
}

// The corpus `config` names (its text file, or exactly kDefaultCorpusFiles in that order) and a
// name for messages. With `read` false only the files are checked and their sizes summed (the
// outline): `data` stays empty.
struct Corpus {
  std::string name;
  std::string data;
  std::uintmax_t size = 0;  // bytes
};
Corpus openCorpus(const TaskConfig& config, bool read) {
  namespace fs = std::filesystem;
  Corpus corpus;
  std::vector<fs::path> files;
  if (config.textFile.empty()) {
    const fs::path dir = kFortunesDir;
    for (const char* name : kDefaultCorpusFiles) {
      const fs::path file = dir / name;
      std::error_code ec;
      if (!fs::is_regular_file(file, ec))
        throw Error("byte-lm: no default corpus: " + file.string() + " is missing",
                    "install the Debian packages fortunes-min and fortunes (scripts/setup.sh "
                    "does) or pass a UTF-8 text file");
      files.push_back(file);
    }
    corpus.name = dir.string() + "/* of fortunes-min and fortunes (default corpus)";
  } else {
    files = {config.textFile};
    corpus.name = config.textFile;
  }
  for (const fs::path& file : files) {
    if (read)
      corpus.data += readFile(file);
    else
      corpus.size += checkInputFile(file.string(), "byte-lm: text file", kMaxTextInputBytes);
  }
  if (read) corpus.size = corpus.data.size();
  return corpus;
}

class ByteLmTask : public Task {
 public:
  // `outline`: the corpus's size only, no bytes (TaskInfo::makeOutline); sample() throws.
  ByteLmTask(const TaskConfig& config, bool outline) : outline_(outline) {
    const TaskOptions opts("byte-lm", config.options, {{"split", 0}});
    const bool eval = opts.getInt("split", 0, 1) == 1;
    Corpus corpus = openCorpus(config, !outline);
    name_ = corpus.name;
    if (corpus.size == 0) throw InvalidArgument("byte-lm: text file '" + name_ + "' is empty");
    if (!outline) {
      const long long bad = firstInvalidUtf8(corpus.data);
      if (bad >= 0)
        throw InvalidArgument("byte-lm: text file '" + name_ + "' is not valid UTF-8 (byte " +
                                  std::to_string(bad) + ")",
                              "pick a UTF-8 text file");
    }
    const auto split =
        static_cast<std::uintmax_t>(static_cast<double>(corpus.size) * (1 - kEvalFraction));
    splitName_ = eval ? "eval split (last 10%)" : "train split (first 90%)";
    splitBytes_ = eval ? corpus.size - split : split;
    if (!outline) bytes_ = eval ? corpus.data.substr(split) : corpus.data.substr(0, split);
    if (splitBytes_ < 2)
      throw InvalidArgument("byte-lm: text file '" + name_ + "' is too short: its " + splitName_ +
                            " has " + std::to_string(splitBytes_) +
                            " bytes, fewer than the 2 a sequence of length 1 needs");
  }

  std::string id() const override { return "byte-lm"; }
  long long vocabSize() const override { return 256; }
  bool hasAccuracy() const override { return false; }
  long long minLength() const override { return 1; }
  long long maxLength() const override { return static_cast<long long>(splitBytes_) - 1; }

  Batch sample(long long batch, long long length, uint64_t seed) const override {
    if (outline_)
      throw Error("byte-lm: the outline of the task over '" + name_ + "' has no bytes to sample",
                  "build the task with makeTask");
    if (length > maxLength() && length >= minLength())
      throw InvalidArgument(
          "byte-lm: text file '" + name_ + "' is too short for length " + std::to_string(length) +
              ": a sequence needs " + std::to_string(length + 1) + " bytes and its " + splitName_ +
              " has " + std::to_string(splitBytes_),
          "allowed lengths [1, " + std::to_string(maxLength()) + "]; use a longer file");
    checkSampleArgs(*this, batch, length);
    Batch out = emptyBatch(batch, length);
    int64_t* tokens = out.tokens.data_ptr<int64_t>();
    int64_t* targets = out.targets.data_ptr<int64_t>();
    const auto* bytes = reinterpret_cast<const unsigned char*>(bytes_.data());
    const uint64_t starts = bytes_.size() - static_cast<uint64_t>(length);  // windows of T+1
    forEachExample(batch, length, seed, kSalt, [&](long long b, std::mt19937_64& rng) {
      const unsigned char* w = bytes + uniformBelow(rng, starts);
      for (long long t = 0; t < length; ++t) {
        tokens[b * length + t] = w[t];
        targets[b * length + t] = w[t + 1];
      }
    });
    return out;
  }

 private:
  bool outline_ = false;
  std::string name_;               // the file (or the default corpus) for messages
  std::string splitName_;          // "train split ..." or "eval split ..."
  std::uintmax_t splitBytes_ = 0;  // this split's size
  std::string bytes_;              // this split's bytes (empty in the outline)
};

}  // namespace

std::string defaultCorpusDirectory() {
  return kFortunesDir;
}

std::vector<std::string> defaultCorpusFiles() {
  return {std::begin(kDefaultCorpusFiles), std::end(kDefaultCorpusFiles)};
}

std::string defaultCorpusDescription() {
  return std::string("English fortune-cookie texts: the text files of ") + kFortunesDir +
         "/ that Debian's fortunes-min and fortunes install, concatenated in name order";
}

namespace {
std::unique_ptr<Task> makeByteLmTask(const TaskConfig& config) {
  return std::make_unique<ByteLmTask>(config, /*outline=*/false);
}
std::unique_ptr<Task> makeByteLmOutline(const TaskConfig& config) {
  return std::make_unique<ByteLmTask>(config, /*outline=*/true);
}
}  // namespace

const TaskInfo& byteLmTaskInfo() {
  static const TaskInfo info = [] {
    TaskInfo i;
    i.id = "byte-lm";
    i.make = makeByteLmTask;  // "split" is internal: no option a form shows
    i.makeOutline = makeByteLmOutline;
    i.takesText = true;
    i.defaultTrainLength = 128;
    i.evaluationOptions = {{"split", 1}};  // the held-out last 10% of the text
    return i;
  }();
  return info;
}

}  // namespace poslab
