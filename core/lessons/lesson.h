// Lessons: a short guided path through the app, a few steps each (resources/lessons/*.json, or a
// teacher's own file opened with File > Open Lesson). Each step is a short text in PosLab's
// formula markup (math between $...$, util/formula_text.h), one suggested action, and an app
// state applied when the step opens: an object in the session format (docs/SESSIONS.md) whose
// fields are all optional here; the GUI checks it against the window (ui/lessons/). Plain data,
// no torch, no Qt: poslab-cli and the GUI read lessons with the same strict reader.
//
//   {"format": "poslab-lesson-1", "title": "...", "summary": "...",
//    "steps": [{"title": "...", "text": "...", "action": "...",
//               "state": {"tab": "kernel", "explorer": {"family": "rope", "values": {...}},
//                         "views": {...}, "training": {...}},
//               "train": false, "training_view": "curves"}]}
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace poslab {

inline constexpr const char* kLessonFormat = "poslab-lesson-1";
inline constexpr std::uintmax_t kMaxLessonBytes = 1ull << 20;  // a lesson file, in bytes
inline constexpr size_t kMaxLessonSteps = 64;                  // steps in one lesson
inline constexpr size_t kMaxLessonTextChars = 4000;            // bytes in one text field

// The training tab's views a step may open ("" keeps the one shown).
const std::vector<std::string>& lessonTrainingViews();  // curves, positions, attention, ...

struct LessonStep {
  std::string title;         // a few words: "The kernel of one frequency"
  std::string text;          // a paragraph or two; $...$ holds formula markup
  std::string action;        // one thing to try: "Drag ω and watch the period shrink"
  nlohmann::json state;      // a (partial) session object; null: the window stays as it is
  bool train = false;        // press Play once the state is applied
  std::string trainingView;  // one of lessonTrainingViews(), or "" (leave as it is)
};

struct Lesson {
  std::string title;    // "RoPE: a rotation and its kernel"
  std::string summary;  // one sentence for the lesson list
  std::vector<LessonStep> steps;
};

// Strict: an unknown key, a missing or mistyped field, an empty or oversized text, too many steps
// is an InvalidArgument "SOURCE, step N: field 'F' ..." (N counted from 1).
Lesson readLesson(const nlohmann::json& j, const std::string& source);
// readInputFile (at most kMaxLessonBytes) + parseJsonText + readLesson; source "lesson file 'P'".
Lesson readLessonFile(const std::string& path);
// How messages name a lesson file: "lesson file 'PATH'".
std::string lessonSource(const std::string& path);
// How messages name one step of it: "lesson file 'PATH', step N" (N from 1).
std::string lessonStepSource(const std::string& source, size_t index);

// The states of steps 0..index merged, each step's fields over the earlier ones' (a view's
// settings one by one): an object, empty when no step up to index has a state. What the window
// shows at step `index` is this over its own state.
nlohmann::json lessonStateUpTo(const Lesson& lesson, size_t index);

// resources/lessons (io/resource_dir.h) and its *.json files, sorted by file name (the shipped
// lessons are numbered 01-..., so this is their teaching order).
std::string lessonDirectory();
std::vector<std::string> lessonFiles();
// nameOrPath itself when it names a path (it exists, has a '/' or ends in .json), else the lesson
// directory's NAME.json. Throws InvalidArgument("unknown lesson ...", the known names).
std::string lessonFile(const std::string& nameOrPath);

}  // namespace poslab
