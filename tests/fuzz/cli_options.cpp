// Fuzzes poslab-cli's option parsers (app/cli/cli_common.h, train_options.h): the input is split
// at newlines into command-line words. Every word goes through the list and --set parsers
// (parseSets, parseLengthList, parseSeedList, parseNameList + requireDistinct, the integerIn
// check); then all words are parsed as `poslab-cli train WORDS...` by CLI11 with the real train
// options and, when that parses, turned into a TrainConfig by buildTrainConfig (--config and
// --text are dropped: they name files, which the config fuzzer covers). Refusals must be
// poslab::Error or CLI11's parse errors, which the CLI prints as one line with exit 2; anything
// else (std::invalid_argument from a stod, a crash) is a finding.
#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_common.h"
#include "cli/train_options.h"
#include "fuzz_support.h"
#include "util/error.h"

namespace {

constexpr size_t kMaxWords = 48;  // more words add nothing but time

template <class F>
void expectRefusalOrResult(F&& f) {
  try {
    f();
  } catch (const poslab::Error&) {
  } catch (const CLI::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace poslab::cli;
  std::vector<std::string> words;
  std::stringstream in(std::string(reinterpret_cast<const char*>(data), size));
  for (std::string w; words.size() < kMaxWords && std::getline(in, w, '\n');) words.push_back(w);

  const CLI::Validator steps = integerIn(0, 1000000);
  for (const std::string& w : words) {
    expectRefusalOrResult([&] { parseSets({w}); });
    expectRefusalOrResult([&] {
      for (long long v : parseLengthList(w, "--eval-lengths"))
        poslab::fuzz::require(v > 0, "parseLengthList gives positive lengths", w);
    });
    expectRefusalOrResult([&] { parseSeedList(w, "--seeds"); });
    expectRefusalOrResult([&] { requireDistinct(parseNameList(w), "--families"); });
    std::string copy = w;
    steps(copy);  // the message or empty; never throws
  }

  CLI::App app{"poslab-cli (fuzz)"};
  app.set_help_flag();
  auto* train = app.add_subcommand("train", "train one family");
  TrainOptions options;
  addTrainOptions(train, options);
  std::string family = "rope";
  train->add_option("--family", family);
  std::vector<const char*> argv = {"poslab-cli", "train"};
  for (const std::string& w : words) argv.push_back(w.c_str());
  expectRefusalOrResult([&] {
    app.parse(static_cast<int>(argv.size()), argv.data());
    options.configFile.clear();
    options.text.clear();
    const poslab::TrainConfig c = buildTrainConfig(options, family);
    c.validate();
  });
  return 0;
}
