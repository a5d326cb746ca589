// Lesson files (core/lessons/lesson.h, issue #16 section 1): every shipped lesson reads strictly
// and its training setups are trainable; a bad lesson is refused with a message that names the
// file, the step (counted from 1) and the field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "io/json_fields.h"
#include "lessons/lesson.h"
#include "lessons/window_state_check.h"
#include "train/experiment_spec.h"
#include "train/trainable_check.h"
#include "util/error.h"
#include "util/formula_text.h"

namespace poslab {
namespace {

using nlohmann::json;

json validLesson() {
  return json::parse(R"({
    "format": "poslab-lesson-1", "title": "T", "summary": "S",
    "steps": [
      {"title": "one", "text": "a $e^{−γd}$ b", "action": "look",
       "state": {"tab": "kernel", "explorer": {"family": "rope"}}},
      {"title": "two", "text": "c", "action": "drag",
       "state": {"training": {"families": ["rope"], "config": {}}}, "train": true,
       "training_view": "curves"},
      {"title": "three", "text": "d", "action": "read", "training_view": "learned-kernel"}
    ]
  })");
}

// The message readLesson throws for `j`, or "" when it reads.
std::string problemOf(const json& j) {
  try {
    readLesson(j, "lesson file 'x.json'");
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(Lesson, ReadsEveryField) {
  const Lesson l = readLesson(validLesson(), "lesson file 'x.json'");
  EXPECT_EQ(l.title, "T");
  EXPECT_EQ(l.summary, "S");
  ASSERT_EQ(l.steps.size(), 3u);
  EXPECT_EQ(l.steps[0].text, "a $e^{−γd}$ b");
  EXPECT_EQ(l.steps[0].state["explorer"]["family"], "rope");
  EXPECT_FALSE(l.steps[0].train);
  EXPECT_TRUE(l.steps[1].train);
  EXPECT_EQ(l.steps[1].trainingView, "curves");
  EXPECT_TRUE(l.steps[2].state.is_null());
  EXPECT_EQ(l.steps[2].trainingView, "learned-kernel");
}

TEST(Lesson, BadLessonsNameTheStepAndTheField) {
  struct Case {
    const char* what;
    std::function<void(json&)> edit;
    std::string expected;  // a part of the message
  };
  const std::vector<Case> cases = {
      {"unknown step key", [](json& j) { j["steps"][1]["colour"] = "red"; },
       "lesson file 'x.json', step 2: field 'colour' is not a known field"},
      {"missing text", [](json& j) { j["steps"][0].erase("text"); },
       "lesson file 'x.json', step 1: field 'text' is missing"},
      {"empty action", [](json& j) { j["steps"][2]["action"] = ""; },
       "step 3: field 'action' is empty"},
      {"text of the wrong type", [](json& j) { j["steps"][2]["text"] = 7; },
       "step 3: field 'text' must be a string, not 7"},
      {"train not a boolean", [](json& j) { j["steps"][1]["train"] = "yes"; },
       "step 2: field 'train' must be true or false"},
      {"train without a training setup", [](json& j) { j["steps"][0]["train"] = true; },
       "step 1: field 'train' is true but the step's state has no 'training'"},
      {"state not an object", [](json& j) { j["steps"][1]["state"] = json::array(); },
       "step 2: field 'state' must be a JSON object"},
      {"unknown training view", [](json& j) { j["steps"][2]["training_view"] = "loss"; },
       "step 3: field 'training_view' = \"loss\" is not allowed"},
      {"step not an object", [](json& j) { j["steps"][1] = 3; },
       "lesson file 'x.json', step 2 must be a JSON object"},
      {"text too long", [](json& j) { j["steps"][0]["text"] = std::string(5000, 'a'); },
       "step 1: field 'text' is 5000 bytes long"},
      {"wrong format", [](json& j) { j["format"] = "poslab-session-1"; },
       "field 'format' = \"poslab-session-1\" is not allowed"},
      {"no format", [](json& j) { j.erase("format"); }, "field 'format' is missing"},
      {"unknown top-level key", [](json& j) { j["author"] = "me"; },
       "field 'author' is not a known field"},
      {"no steps", [](json& j) { j["steps"] = json::array(); }, "field 'steps' is empty"},
      {"steps not a list", [](json& j) { j["steps"] = json::object(); },
       "field 'steps' must be a list of steps"},
      {"too many steps",
       [](json& j) {
         for (int k = 0; k < 70; ++k) j["steps"].push_back(j["steps"][0]);
       },
       "field 'steps' has 73 steps"},
  };
  for (const Case& c : cases) {
    json j = validLesson();
    c.edit(j);
    const std::string problem = problemOf(j);
    EXPECT_NE(problem.find(c.expected), std::string::npos)
        << c.what << ": got \"" << problem << "\"";
  }
  EXPECT_EQ(problemOf(validLesson()), "");
}

TEST(Lesson, FilesAreReadWithALimitAndNamed) {
  const auto dir = std::filesystem::temp_directory_path() / "poslab_test_lesson";
  std::filesystem::create_directories(dir);
  const std::string broken = (dir / "broken.json").string();
  std::ofstream(broken) << "{\"format\": \"poslab-lesson-1\",\n \"title\": }";
  try {
    readLessonFile(broken);
    ADD_FAILURE() << "a lesson that is not JSON was read";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("lesson file '" + broken + "': not valid JSON at line 2"),
              std::string::npos)
        << e.what();
  }
  const std::string huge = (dir / "huge.json").string();
  std::ofstream(huge) << std::string(kMaxLessonBytes + 1, ' ');
  EXPECT_THROW(readLessonFile(huge), InvalidArgument);
  EXPECT_THROW(readLessonFile((dir / "missing.json").string()), InvalidArgument);
  EXPECT_THROW(lessonFile("no-such-lesson"), InvalidArgument);
  std::filesystem::remove_all(dir);
}

// Issue #16 asks for at least eight lessons through the three papers. Each reads strictly, and
// each training setup a step gives is a valid, trainable experiment (as a session's training
// block). The GUI test (tests/ui/test_lessons.cpp) applies every step to a window.
TEST(Lesson, EveryShippedLessonReadsAndItsTrainingSetupsAreTrainable) {
  const std::vector<std::string> files = lessonFiles();
  ASSERT_GE(files.size(), 8u) << "in " << lessonDirectory();
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    const Lesson lesson = readLessonFile(file);
    EXPECT_GE(lesson.steps.size(), 2u);
    for (size_t i = 0; i < lesson.steps.size(); ++i) {
      const LessonStep& s = lesson.steps[i];
      EXPECT_EQ(proseAsPlainText(s.text).find('$'), std::string::npos)
          << "step " << i + 1 << ": an unclosed formula";
      if (!s.state.is_object()) continue;
      EXPECT_NO_THROW(checkWindowState(s.state, "step " + std::to_string(i + 1)));
      if (!s.state.contains("training")) continue;
      const JsonPath at{lessonStepSource(lessonSource(file), i), "state.training"};
      EXPECT_NO_THROW(checkTrainable(readExperiment(s.state["training"], at), at));
    }
    EXPECT_EQ(lessonFile(std::filesystem::path(file).stem().string()), file);
  }
}

// The window-side fields of a step's state, checked as the GUI's validateSession checks them
// (poslab-cli lesson used to pass these): each case edits one field of a good state.
TEST(Lesson, WindowStatesTheGuiRefusesAreRefused) {
  const json good = json::parse(R"({"tab": "kernel",
    "explorer": {"family": "jordan-exact", "values": {"gamma": 0.01}},
    "views": {"kernel": {"lags": 256, "overlay": ["rope"]}, "attention": {"T": 64, "head": 1},
              "norms": {"max_position": 1024}}})");
  EXPECT_NO_THROW(checkWindowState(good, "s"));
  const std::vector<std::pair<std::function<void(json&)>, std::string>> cases = {
      {[](json& j) { j["explorer"]["family"] = "jordan-exactt"; },
       "s: field 'explorer.family': unknown family 'jordan-exactt'"},
      {[](json& j) { j["explorer"]["values"]["gamma"] = 70; },
       "s: field 'explorer.values.gamma' = 70 is outside [0, 10] for family jordan-exact"},
      {[](json& j) { j["explorer"]["values"]["beta"] = 1; },
       "s: field 'explorer.values.beta': family jordan-exact has no parameter 'beta'"},
      {[](json& j) { j["explorer"]["values"]["gamma"] = "small"; },
       "s: field 'explorer.values.gamma' must be a number"},
      {[](json& j) { j["explorer"].erase("family"); }, "s: field 'explorer.family' is missing"},
      {[](json& j) { j["views"]["kernel"]["lags"] = 100; },
       "s: field 'views.kernel.lags' = 100 is not one of 16, 32, 64"},
      {[](json& j) { j["views"]["attention"]["T"] = 2048; },
       "s: field 'views.attention.T' = 2048 is not one of"},
      {[](json& j) { j["views"]["attention"]["head"] = 4097; },
       "s: field 'views.attention.head' = 4097 is outside [1, 4096]"},
      {[](json& j) { j["views"]["norms"]["max_position"] = 100000000; },
       "s: field 'views.norms.max_position' = 100000000 is not one of"},
      {[](json& j) {
         j["views"]["kernel"]["overlay"] = {"rope", "rope"};
       },
       "s: field 'views.kernel.overlay' lists family 'rope' twice"},
      {[](json& j) {
         j["views"]["kernel"]["overlay"] = {"a", "b", "c", "d"};
       },
       "s: field 'views.kernel.overlay' lists 4 families; the kernel view overlays at most 3"},
      {[](json& j) {
         j["views"]["probe"] = {{"target", "nope"}};
       },
       "s: field 'views.probe.target' = \"nope\" is not one of"},
      {[](json& j) { j["tab"] = "kernal"; }, "s: field 'tab' = \"kernal\" is not one of kernel|"},
      {[](json& j) { j["views"]["kernel"]["lagz"] = 1; }, "s: field 'views.kernel.lagz' is not"},
      {[](json& j) { j["trained_models"] = json::array(); },
       "s: field 'trained_models' is not allowed"},
      {[](json& j) { j["explorer"] = "rope"; }, "s: field 'explorer' must be a JSON object"},
  };
  for (const auto& [edit, message] : cases) {
    json j = good;
    edit(j);
    try {
      checkWindowState(j, "s");
      ADD_FAILURE() << "accepted: " << j.dump();
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(std::string(e.what()).rfind(message, 0), 0u) << e.what();
    }
  }
}

TEST(Lesson, ProseAsPlainText) {
  EXPECT_EQ(proseAsPlainText("the kernel $\\frac{d}{1 + d/L}$ grows"),
            "the kernel d/(1 + d/L) grows");
  EXPECT_EQ(proseAsPlainText("costs \\$5, $x_{b}$"), "costs $5, x_b");
  EXPECT_EQ(proseAsPlainText("an unclosed $x_{b}"), "an unclosed $x_{b}");
}

}  // namespace
}  // namespace poslab
