// `poslab-cli lesson [NAME|FILE]`: without an argument, the shipped lessons (resources/lessons)
// with their titles and step counts; with one, that lesson's steps as plain text, after checking
// it: the lesson format strictly (lessons/lesson.h), the window-side fields of every step's state
// (family, values, views, tab) as the GUI checks them when it opens the step
// (lessons/window_state_check.h), the work of the view each step shows (limits/view_work.h), and
// every step's training setup as a session's training block
// is checked (readExperiment, then checkTrainable), and each of its runs as the training tab
// starts them (one seed) against the tab's work budgets (train/run_limits.h,
// trainingRunBudgetProblem: the window refuses such a step with the same check).
#include <filesystem>
#include <iostream>

#include "cli/cli_common.h"
#include "io/json_fields.h"
#include "lessons/lesson.h"
#include "lessons/window_state_check.h"
#include "limits/view_work.h"
#include "train/experiment_plan.h"
#include "train/experiment_spec.h"
#include "train/run_limits.h"
#include "train/trainable_check.h"
#include "util/error.h"
#include "util/formula_text.h"

namespace poslab::cli {

namespace {

// Every step's own state, read and checked as the GUI's session reader does: the window's
// fields; the work of the view the step shows, with the steps before it, over a fresh window
// (limits/view_work.h, the window's own check); then the training setup.
void checkStepStates(const Lesson& lesson, const std::string& source) {
  for (size_t i = 0; i < lesson.steps.size(); ++i) {
    const nlohmann::json& state = lesson.steps[i].state;
    if (!state.is_object()) continue;
    checkWindowState(state, lessonStepSource(source, i) + ", state");
    nlohmann::json shown = lessonStateUpTo(lesson, i);
    // A step that opens a training view without naming a tab shows the training tab (the GUI's
    // lesson player does the same).
    if (!lesson.steps[i].trainingView.empty() && !state.contains("tab")) shown["tab"] = "training";
    ViewWorkRequest view;
    if (viewWorkRequestOfState(shown, &view))
      if (const std::string problem = stateViewWorkProblem(view); !problem.empty())
        throw InvalidArgument(lessonStepSource(source, i) + ", state: " + problem);
    if (!state.contains("training")) continue;
    const JsonPath at{lessonStepSource(source, i), "state.training"};
    ExperimentSpec training = readExperiment(state["training"], at);
    checkTrainable(training, at);
    if (!training.seeds.empty()) training.seeds = {training.seeds.front()};  // the tab's one seed
    for (const PlannedRun& run : planExperiment(training))
      if (const std::string problem = trainingRunBudgetProblem(run.config); !problem.empty())
        throw InvalidArgument(lessonStepSource(source, i) +
                              ", state: field 'training.config': " + problem);
  }
}

nlohmann::json lessonJson(const Lesson& lesson, const std::string& file) {
  nlohmann::json steps = nlohmann::json::array();
  for (const LessonStep& s : lesson.steps)
    steps.push_back({{"title", s.title},
                     {"text", s.text},
                     {"action", s.action},
                     {"trains", s.train},
                     {"has_state", s.state.is_object()}});
  return {{"file", file},
          {"name", std::filesystem::path(file).stem().string()},
          {"title", lesson.title},
          {"summary", lesson.summary},
          {"steps", steps}};
}

}  // namespace

void addLessonCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("lesson",
                                 "list the lessons, or check one lesson file and print its steps");
  auto name = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("lesson", *name, "a lesson name (see `poslab-cli lesson`) or a lesson file");
  cmd->add_flag("--json", *json, "print one JSON document on stdout");
  cmd->callback([name, json] {
    if (name->empty()) {
      nlohmann::json list = nlohmann::json::array();
      for (const std::string& file : lessonFiles()) {
        const Lesson lesson = readLessonFile(file);
        checkStepStates(lesson, lessonSource(file));
        list.push_back(lessonJson(lesson, file));
      }
      if (*json) return printJson({{"lessons", list}});
      std::vector<std::vector<std::string>> rows;
      for (const auto& l : list)
        rows.push_back({l["name"].get<std::string>(), std::to_string(l["steps"].size()),
                        l["title"].get<std::string>()});
      return printTable({"lesson", "steps", "title"}, rows);
    }
    const std::string file = lessonFile(*name);
    const Lesson lesson = readLessonFile(file);
    checkStepStates(lesson, lessonSource(file));
    if (*json) return printJson(lessonJson(lesson, file));
    std::cout << lesson.title << "\n";
    if (!lesson.summary.empty()) std::cout << proseAsPlainText(lesson.summary) << "\n";
    for (size_t i = 0; i < lesson.steps.size(); ++i) {
      const LessonStep& s = lesson.steps[i];
      std::cout << "\nStep " << i + 1 << " of " << lesson.steps.size() << ": " << s.title << "\n"
                << proseAsPlainText(s.text) << "\nTry: " << proseAsPlainText(s.action) << "\n";
    }
  });
}

}  // namespace poslab::cli
