// What each task declares about itself, in its own file (tasks/*.cpp), as FamilyInfo does for the
// encoding families: its id, how to build it, its options for a form, its kernel choices and what
// a form calls them, whether it reads a text, its evaluation variant and what the live views can
// ask of it. task_registry.cpp lists the declarations; nothing outside a task's own file compares
// its id (scripts/check_task_ids.sh). Plain data, no torch: the UI reads it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tasks/task_config.h"
#include "tasks/task_options.h"

namespace poslab {

class Task;  // tasks/task.h

// What a trained model on this task can be asked beyond loss and accuracy. Each is also a fact of
// the built task (tests/core/test_task_registry.cpp checks that they agree).
struct TaskCapabilities {
  bool lagResponse = false;       // Task::labelWeights: the response to one flipped bit per lag
  bool distanceAccuracy = false;  // Task::accuracyDistances: accuracy against key distance
  bool teacherAttention = false;  // Task::teacherAttention: final-query attention entropy
  // Its examples can be spelled out (characters, source, offset: decodeIndirectIndexing in
  // tasks/indirect_indexing.h) for the sample view.
  bool decodedExamples = false;
};

struct TaskInfo {
  std::string id;  // "kernel-lm"
  std::unique_ptr<Task> (*make)(const TaskConfig&) = nullptr;
  // The task without its data, for plans and checks on a thread that must not read a corpus (the
  // window's UI thread): everything but sample() answers as make()'s task would, lengths from
  // the file's size; sample() throws. Null: make() reads nothing, so it serves.
  std::unique_ptr<Task> (*makeOutline)(const TaskConfig&) = nullptr;
  // The options a form shows (TaskConfig::options), defaults computed for the config; empty: none.
  std::vector<TaskOptionSpec> (*optionSpecs)(const TaskConfig&) = nullptr;
  std::vector<std::string> kernelChoices;  // TaskConfig::kernel's names; empty: takes no kernel
  std::string defaultKernel;               // the kernel when none is named; empty: no kernel
  std::string kernelLabel;                 // what a form calls the kernel: "kernel", "teacher"
  std::string kernelHelp;                  // one line for the form's tool tip
  bool takesText = false;                  // reads TaskConfig::textFile
  // TaskConfig::kernel names a PJ sector teacher (tasks/sector_teacher.h), so a pj-bias model's
  // "auto" gate and order initialisation can read the sector and order from it.
  bool kernelIsSectorTeacher = false;
  long long defaultTrainLength = 64;  // tokens, when the user gives none (the CLI)
  // Options that turn the task into the one evaluation draws from (byte-lm: {"split", 1}, the
  // held-out last 10% of the text); empty: evaluation draws from the task itself.
  std::map<std::string, double> evaluationOptions;
  TaskCapabilities capabilities;
};

// Every task, in the order of docs/MATH.md section 3.
const std::vector<const TaskInfo*>& allTasks();
// Throws InvalidArgument naming the unknown id and listing the known ones.
const TaskInfo& taskInfo(const std::string& id);
// Null for an unknown id.
const TaskInfo* findTaskInfo(const std::string& id);

}  // namespace poslab
