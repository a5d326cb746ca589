// The one experiment format (presets, sessions' "training", run reports' setup.json, --config):
// strict reading names the file, the key path and what is allowed (issue #11 section 2, #17
// section 3); writing and reading back keeps every value; the runs are planned by one rule.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <tuple>

#include "io/json_fields.h"
#include "train/experiment_plan.h"
#include "train/experiment_spec.h"
#include "train/preset.h"
#include "train/trainable_check.h"
#include "util/error.h"

namespace poslab {
namespace {

using nlohmann::json;

// A small valid experiment, written by hand (not by experimentToJson).
json validExperiment() {
  return json::parse(R"({
    "name": "t", "description": "d", "paper": "p",
    "families": ["rope", "pope"], "seeds": [3, 4],
    "family_params": {"rope": {"base": 500}},
    "variants": [{"kernel": "phase"}, {"kernel": "first_jet"}],
    "config": {
      "task": {"id": "sector-teacher", "kernel": "phase", "options": {"teacher": 1},
               "train_length": 24},
      "model": {"d_model": 32, "heads": 2, "layers": 1},
      "optim": {"lr": 0.002, "batch": 8, "position_lr_scale": 30},
      "run": {"steps": 7, "eval_lengths": [24, 48], "eval_sequences": 4, "eval_every": 0}
    }
  })");
}

// The message readExperiment throws for `j`, or "" when it reads.
std::string errorOfExperiment(const json& j) {
  try {
    readExperiment(j, JsonPath{"test.json", ""});
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

std::string writeFile(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("poslab_experiment_" + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(ExperimentFile, ReadsEveryKeyOfAHandWrittenFile) {
  const ExperimentSpec s = readExperiment(validExperiment(), JsonPath{"test.json", ""});
  EXPECT_EQ(s.name, "t");
  EXPECT_EQ(s.description, "d");
  EXPECT_EQ(s.paperResult, "p");
  EXPECT_EQ(s.families, (std::vector<std::string>{"rope", "pope"}));
  EXPECT_EQ(s.seeds, (std::vector<uint64_t>{3, 4}));
  EXPECT_EQ(s.familyParams.at("rope").at("base"), 500);
  ASSERT_EQ(s.variants.size(), 2u);
  EXPECT_EQ(s.variants[1].at("kernel"), "first_jet");
  EXPECT_EQ(s.base.task.id, "sector-teacher");
  EXPECT_EQ(s.base.task.options.at("teacher"), 1);
  EXPECT_EQ(s.base.task.trainLength, 24);
  EXPECT_EQ(s.base.model.dModel, 32);
  EXPECT_EQ(s.base.model.heads, 2);
  EXPECT_EQ(s.base.optim.lr, 0.002);
  EXPECT_EQ(s.base.optim.positionLrScale, 30);
  EXPECT_EQ(s.base.run.evalLengths, (std::vector<long long>{24, 48}));
  // Keys not given keep the struct's defaults.
  EXPECT_EQ(s.base.optim.warmup, OptimConfig{}.warmup);
  EXPECT_EQ(s.base.model.norm, "rms");
}

TEST(ExperimentFile, WritingAndReadingBackKeepsEveryValue) {
  ExperimentSpec s = readExperiment(validExperiment(), JsonPath{});
  s.base.model.pinned = {"eta"};
  s.base.run.seed = 18446744073709551615ull;  // 2^64 - 1
  s.base.optim.lr = 1.2345678901234567e-3;
  const json written = experimentToJson(s);
  const ExperimentSpec back = readExperiment(written, JsonPath{});
  EXPECT_EQ(experimentToJson(back), written);
  EXPECT_EQ(back.base.run.seed, 18446744073709551615ull);
  EXPECT_EQ(back.base.optim.lr, 1.2345678901234567e-3);
  EXPECT_EQ(back.base.model.pinned, (std::vector<std::string>{"eta"}));
}

struct Case {
  const char* name;
  std::function<void(json&)> edit;
  std::vector<std::string> expected;  // all in the message
};

TEST(ExperimentFile, RefusesWhatTheCliUsedToIgnore) {
  const std::vector<Case> cases = {
      {"learning_rate",
       [](json& j) { j["config"]["optim"]["learning_rate"] = 0.1; },
       {"test.json", "field 'config.optim.learning_rate' is not a known field", "lr, "}},
      {"step",
       [](json& j) { j["config"]["run"]["step"] = 5; },
       {"'config.run.step' is not a known field", "steps"}},
      {"dmodel",
       [](json& j) { j["config"]["model"]["dmodel"] = 5; },
       {"'config.model.dmodel' is not a known field", "d_model"}},
      {"train_len",
       [](json& j) { j["config"]["task"]["train_len"] = 5; },
       {"'config.task.train_len' is not a known field", "train_length"}},
      {"top-level seed",
       [](json& j) { j["seed"] = 1; },
       {"field 'seed' is not a known field", "seeds"}},
      {"descripton",
       [](json& j) { j["descripton"] = "x"; },
       {"field 'descripton' is not a known field", "description"}},
      {"unknown config section",
       [](json& j) { j["config"]["optimizer"] = json::object(); },
       {"'config.optimizer' is not a known field", "model, task, optim, run"}},
      {"true for a number",
       [](json& j) { j["config"]["optim"]["lr"] = true; },
       {"'config.optim.lr' must be a number, not true"}},
      {"3.7 for an integer",
       [](json& j) { j["config"]["run"]["steps"] = 3.7; },
       {"'config.run.steps' must be a whole number, not 3.7"}},
      {"text for an integer",
       [](json& j) { j["config"]["optim"]["batch"] = "8"; },
       {"'config.optim.batch' must be a whole number, not \"8\""}},
      {"kernal variant",
       [](json& j) {
         j["variants"][1] = {{"kernal", "phase"}};
       },
       {"'variants[1].kernal' is not a known field", "id, kernel, text_file"}},
      {"unknown variant kernel",
       [](json& j) { j["variants"][0]["kernel"] = "phasee"; },
       {"'variants[0].kernel' = \"phasee\" is not allowed", "first_jet"}},
      {"negative seed",
       [](json& j) { j["seeds"] = {-1}; },
       {"'seeds[0]' = -1 must not be negative"}},
      {"no seeds", [](json& j) { j["seeds"] = json::array(); }, {"'seeds' is empty"}},
      {"no families", [](json& j) { j["families"] = json::array(); }, {"'families' is empty"}},
      {"families missing", [](json& j) { j.erase("families"); }, {"'families' is missing"}},
      {"config missing", [](json& j) { j.erase("config"); }, {"'config' is missing"}},
      {"unknown family",
       [](json& j) { j["families"][1] = "ropee"; },
       {"'families[1]': unknown family 'ropee'", "jordan-stabilized"}},
      {"unknown family_params family",
       [](json& j) { j["family_params"]["ropee"] = json::object(); },
       {"'family_params.ropee': unknown family 'ropee'"}},
      {"train_length 1e9",
       [](json& j) { j["config"]["task"]["train_length"] = 1000000000; },
       {"'config.task.train_length' = 1000000000 is out of range", "[2, 65536]"}},
      {"train_length 1e9 as a float",
       [](json& j) { j["config"]["task"]["train_length"] = 1e9; },
       {"'config.task.train_length' = 1e+09 is out of range", "[2, 65536]"}},
      {"steps 2^63-1",
       [](json& j) { j["config"]["run"]["steps"] = 9223372036854775807LL; },
       {"'config.run.steps' = 9223372036854775807 is out of range", "[0, 1000000]"}},
      {"steps 2^64-1",
       [](json& j) { j["config"]["run"]["steps"] = 18446744073709551615ULL; },
       {"'config.run.steps' = 18446744073709551615 is out of range"}},
      {"lr 1e308",
       [](json& j) { j["config"]["optim"]["lr"] = 1e308; },
       {"'config.optim.lr' = 1e+308 is out of range", "[1e-05, 1]"}},
      {"batch 1e9",
       [](json& j) { j["config"]["optim"]["batch"] = 1000000000; },
       {"'config.optim.batch' = 1000000000 is out of range", "[1, 4096]"}},
      {"unknown device",
       [](json& j) { j["config"]["run"]["device"] = "gpu"; },
       {"'config.run.device' = \"gpu\" is not allowed", "auto, cpu, cuda"}},
      {"eval length 1",
       [](json& j) { j["config"]["run"]["eval_lengths"][1] = 1; },
       {"'config.run.eval_lengths[1]' = 1 is out of range"}},
      {"config not an object",
       [](json& j) { j["config"] = json::array(); },
       {"'config' must be a JSON object, not an array"}},
  };
  for (const Case& c : cases) {
    json j = validExperiment();
    c.edit(j);
    const std::string message = errorOfExperiment(j);
    EXPECT_FALSE(message.empty()) << c.name << " was accepted";
    for (const std::string& part : c.expected)
      EXPECT_NE(message.find(part), std::string::npos)
          << c.name << ": '" << message << "' lacks '" << part << "'";
  }
  EXPECT_EQ(errorOfExperiment(validExperiment()), "");  // the unedited experiment reads
}

// Pin names are the families' own (PJ-bias pins omega; RoPE pins nothing), so the reader takes any
// name and checkTrainable, which every command runs before training, refuses one a family of the
// experiment does not learn, naming the field and what the family does learn.
TEST(ExperimentFile, APinTheFamilyDoesNotLearnIsRefusedBeforeTraining) {
  json j = validExperiment();
  j["families"] = {"pope"};
  j["config"]["model"]["pinned"] = {"omega"};
  const ExperimentSpec spec = readExperiment(j, JsonPath{"test.json", ""});
  try {
    checkTrainable(spec, JsonPath{"test.json", ""});
    FAIL() << "pinning omega on PoPE was accepted";
  } catch (const InvalidArgument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("config.model.pinned"), std::string::npos) << message;
    EXPECT_NE(message.find("cannot pin 'omega'"), std::string::npos) << message;
    EXPECT_NE(message.find("delta"), std::string::npos) << message;  // what PoPE learns
  }
  j["config"]["model"]["pinned"] = {"delta"};
  EXPECT_NO_THROW(
      checkTrainable(readExperiment(j, JsonPath{"test.json", ""}), JsonPath{"test.json", ""}));
}

TEST(ExperimentFile, WholeNumbersMayBeWrittenWithAnExponent) {
  json j = validExperiment();
  j["config"]["run"]["steps"] = 1e3;
  j["seeds"] = {2.0};
  const ExperimentSpec s = readExperiment(j, JsonPath{});
  EXPECT_EQ(s.base.run.steps, 1000);
  EXPECT_EQ(s.seeds, (std::vector<uint64_t>{2}));
}

TEST(ExperimentFile, AFileThatIsNotOneObjectIsRefusedNamingTheFile) {
  const std::string array = writeFile("array.json", "[1, 2]");
  try {
    readExperimentFile(array, "preset file");
    FAIL() << "a JSON array was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("preset file '" + array + "' must hold a JSON object"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(std::string(e.what()).find("field ''"), std::string::npos) << e.what();
  }
  const std::string trailing = writeFile("trailing.json", validExperiment().dump() + " x");
  try {
    readExperimentFile(trailing, "preset file");
    FAIL() << "trailing garbage was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'" + trailing + "': not valid JSON"), std::string::npos)
        << e.what();
  }
  const std::string typo = writeFile("typo.json", R"({"families": ["rope"],
    "config": {"model": {"dmodel": 32}}})");
  try {
    readExperimentFile(typo, "preset file");
    FAIL() << "a misspelt key was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("preset file '" + typo +
                                         "': field 'config.model.dmodel' is not a known field"),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove(array);
  std::filesystem::remove(trailing);
  std::filesystem::remove(typo);
}

TEST(ExperimentFile, TrainConfigFilesAreReadByTheSameRules) {
  const std::string typo = writeFile("config.json", R"({"optim": {"learning_rate": 0.1}})");
  try {
    readTrainConfigFile(typo, "--config");
    FAIL() << "a misspelt key was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("--config '" + typo +
                                         "': field 'optim.learning_rate' is not a known field"),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove(typo);
  // A config built in code is held to the same limits (the CLI flags end up here).
  TrainConfig c;
  c.optim.lr = 1e308;
  try {
    c.validate();
    FAIL() << "lr 1e308 was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'optim.lr' = 1e+308 is out of range"), std::string::npos)
        << e.what();
  }
}

TEST(ExperimentFile, EveryShippedPresetReads) {
  ASSERT_EQ(presetNames().size(), 20u);
  for (const std::string& name : presetNames()) {
    const ExperimentSpec s = loadPreset(name);
    EXPECT_EQ(s.name, name);
    EXPECT_NO_THROW(s.base.validate()) << name;
  }
}

TEST(ExperimentPlan, VariantsThenFamiliesThenSeedsWithTheVariantApplied) {
  const ExperimentSpec s = readExperiment(validExperiment(), JsonPath{});
  const std::vector<PlannedRun> plan = planExperiment(s);
  // (kernel, family, seed) in the order they are trained, written out by hand.
  const std::vector<std::tuple<std::string, std::string, uint64_t>> expected = {
      {"phase", "rope", 3},     {"phase", "rope", 4},     {"phase", "pope", 3},
      {"phase", "pope", 4},     {"first_jet", "rope", 3}, {"first_jet", "rope", 4},
      {"first_jet", "pope", 3}, {"first_jet", "pope", 4}};
  ASSERT_EQ(plan.size(), expected.size());
  EXPECT_EQ(experimentRunCount(s), expected.size());
  for (size_t i = 0; i < plan.size(); ++i) {
    const auto& [kernel, family, seed] = expected[i];
    EXPECT_EQ(plan[i].config.task.kernel, kernel) << i;
    EXPECT_EQ(plan[i].variant, kernel) << i;
    EXPECT_EQ(plan[i].family, family) << i;
    EXPECT_EQ(plan[i].config.model.family, family) << i;
    EXPECT_EQ(plan[i].seed, seed) << i;
    EXPECT_EQ(plan[i].config.run.seed, seed) << i;
    // The family's parameters go to its own runs only.
    EXPECT_EQ(plan[i].config.model.familyParams.count("base"), family == "rope" ? 1u : 0u) << i;
  }
}

// Several families: each run holds the pins its own family learns (rope learns nothing, pope its
// delta, damped-rope its gamma); one family keeps the list as given (checkTrainable checked it).
TEST(ExperimentPlan, EachRunPinsWhatItsFamilyLearns) {
  json j = validExperiment();
  j["families"] = {"rope", "pope", "damped-rope"};
  j["config"]["model"]["pinned"] = {"gamma", "delta"};
  j.erase("variants");
  const std::vector<PlannedRun> plan = planExperiment(readExperiment(j, JsonPath{}));
  ASSERT_EQ(plan.size(), 6u);
  const std::map<std::string, std::vector<std::string>> expected = {
      {"rope", {}}, {"pope", {"delta"}}, {"damped-rope", {"gamma"}}};
  for (const PlannedRun& p : plan)
    EXPECT_EQ(p.config.model.pinned, expected.at(p.family)) << p.family;
  j["families"] = {"pope"};
  for (const PlannedRun& p : planExperiment(readExperiment(j, JsonPath{})))
    EXPECT_EQ(p.config.model.pinned, (std::vector<std::string>{"gamma", "delta"}));
}

TEST(ExperimentPlan, AVariantSetsEveryTaskFieldItNames) {
  TrainConfig c;
  applyTaskVariant({{"id", "byte-lm"}, {"text_file", "a.txt"}, {"kernel", "second_jet"}}, c);
  EXPECT_EQ(c.task.id, "byte-lm");
  EXPECT_EQ(c.task.textFile, "a.txt");
  EXPECT_EQ(c.task.kernel, "second_jet");
  EXPECT_THROW(applyTaskVariant({{"kernal", "phase"}}, c), InvalidArgument);
  applyTaskVariant({{"sectors", "fj"}, {"options.teacher", "0"}}, c);
  EXPECT_EQ(c.model.pjSectors, "fj");
  EXPECT_EQ(c.task.options.at("teacher"), 0);
  EXPECT_THROW(applyTaskVariant({{"options.teacher", "1x"}}, c), InvalidArgument);
}

}  // namespace
}  // namespace poslab
