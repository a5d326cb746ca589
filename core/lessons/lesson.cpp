#include "lessons/lesson.h"

#include <algorithm>
#include <filesystem>

#include "io/input_file.h"
#include "io/json_fields.h"
#include "io/json_input.h"
#include "io/resource_dir.h"
#include "util/error.h"

namespace poslab {

using nlohmann::json;

namespace {

// A required or optional text field, non-empty and not longer than kMaxLessonTextChars.
void readText(const json& j, const JsonPath& at, const char* key, bool required, std::string& out) {
  auto it = j.find(key);
  if (it == j.end()) {
    if (required) at.key(key).fail("is missing");
    return;
  }
  readJsonValue(*it, at.key(key), anyValue(), out);
  if (required && out.empty()) at.key(key).fail("is empty");
  if (out.size() > kMaxLessonTextChars)
    at.key(key).fail("is " + std::to_string(out.size()) + " bytes long",
                     "at most " + std::to_string(kMaxLessonTextChars));
}

LessonStep readStep(const json& j, const std::string& source) {
  const JsonPath at{source, ""};
  if (!j.is_object()) throw InvalidArgument(source + " must be a JSON object, not " + shownJson(j));
  checkJsonObject(j, at, {"title", "text", "action", "state", "train", "training_view"});
  LessonStep s;
  readText(j, at, "title", true, s.title);
  readText(j, at, "text", true, s.text);
  readText(j, at, "action", true, s.action);
  if (auto it = j.find("state"); it != j.end()) {
    if (!it->is_object())
      at.key("state").fail("must be a JSON object (a session), not " + shownJson(*it));
    s.state = *it;
  }
  if (auto it = j.find("train"); it != j.end()) {
    if (!it->is_boolean()) at.key("train").fail("must be true or false, not " + shownJson(*it));
    s.train = it->get<bool>();
  }
  if (auto it = j.find("training_view"); it != j.end())
    readJsonValue(*it, at.key("training_view"), oneOf(lessonTrainingViews()), s.trainingView);
  if (s.train && s.state.is_object() && !s.state.contains("training"))
    at.key("train").fail("is true but the step's state has no 'training' setup to train",
                         "give state.training, as in a session");
  return s;
}

}  // namespace

const std::vector<std::string>& lessonTrainingViews() {
  // The training tab's view tabs, in order (ui/training/training_panel.cpp).
  static const std::vector<std::string> views = {"curves",      "positions",      "attention",
                                                 "samples",     "learned-kernel", "frequency-usage",
                                                 "key-distance"};
  return views;
}

std::string lessonSource(const std::string& path) {
  return "lesson file '" + path + "'";
}

std::string lessonStepSource(const std::string& source, size_t index) {
  return source + ", step " + std::to_string(index + 1);
}

Lesson readLesson(const json& j, const std::string& source) {
  const JsonPath at{source, ""};
  checkJsonObject(j, at, {"format", "title", "summary", "steps"});
  std::string format;
  auto f = j.find("format");
  if (f == j.end()) at.key("format").fail("is missing", std::string("\"") + kLessonFormat + "\"");
  readJsonValue(*f, at.key("format"), oneOf({kLessonFormat}), format);
  Lesson lesson;
  readText(j, at, "title", true, lesson.title);
  readText(j, at, "summary", false, lesson.summary);
  auto steps = j.find("steps");
  if (steps == j.end()) at.key("steps").fail("is missing");
  if (!steps->is_array()) at.key("steps").fail("must be a list of steps, not " + shownJson(*steps));
  if (steps->empty()) at.key("steps").fail("is empty", "a lesson has at least one step");
  if (steps->size() > kMaxLessonSteps)
    at.key("steps").fail("has " + std::to_string(steps->size()) + " steps",
                         "at most " + std::to_string(kMaxLessonSteps));
  for (size_t i = 0; i < steps->size(); ++i)
    lesson.steps.push_back(readStep((*steps)[i], lessonStepSource(source, i)));
  return lesson;
}

Lesson readLessonFile(const std::string& path) {
  const std::string source = lessonSource(path);
  return readLesson(parseJsonText(readInputFile(path, "lesson file", kMaxLessonBytes), source),
                    source);
}

std::string lessonDirectory() {
  return resourceDirectory() + "/lessons";
}

std::vector<std::string> lessonFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(lessonDirectory(), ec))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string lessonFile(const std::string& nameOrPath) {
  namespace fs = std::filesystem;
  if (fs::exists(nameOrPath) || nameOrPath.find('/') != std::string::npos ||
      fs::path(nameOrPath).extension() == ".json")
    return nameOrPath;
  const std::string path = lessonDirectory() + "/" + nameOrPath + ".json";
  if (!fs::exists(path)) {
    std::string known;
    for (const auto& f : lessonFiles())
      known += (known.empty() ? "" : ", ") + fs::path(f).stem().string();
    throw InvalidArgument("unknown lesson '" + nameOrPath + "'", "known lessons: " + known);
  }
  return path;
}

nlohmann::json lessonStateUpTo(const Lesson& lesson, size_t index) {
  nlohmann::json merged = nlohmann::json::object();
  for (size_t k = 0; k <= index && k < lesson.steps.size(); ++k) {
    const nlohmann::json& state = lesson.steps[k].state;
    if (!state.is_object()) continue;
    for (const auto& [key, value] : state.items()) {
      if (key == "views" && value.is_object() && merged.contains("views") &&
          merged["views"].is_object())
        for (const auto& [view, settings] : value.items()) merged["views"][view] = settings;
      else
        merged[key] = value;
    }
  }
  return merged;
}

}  // namespace poslab
