// The task seam (core/tasks/task_info.h), guarded as the families' is: every task generator in
// core/tasks has a declaration in the registry, and what each declaration says about its task
// (kernels, text, evaluation variant, capabilities) is what the built task does.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "tasks/byte_lm.h"
#include "tasks/task.h"
#include "tasks/task_info.h"
#include "util/error.h"

namespace poslab {
namespace {

std::string readText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A config the task builds with: its default kernel and training length.
TaskConfig defaultConfig(const TaskInfo& info) {
  TaskConfig c;
  c.id = info.id;
  c.kernel = info.defaultKernel;
  c.trainLength = info.defaultTrainLength;
  return c;
}

bool canBuild(const TaskInfo& info) {
  return !info.takesText || std::filesystem::exists(defaultCorpusDirectory());
}

// Every class in core/tasks that derives from Task returns an id that the registry declares, and
// the file that holds it holds the declaration (a generator added without one fails here).
TEST(TaskRegistry, EveryTaskGeneratorIsDeclared) {
  const std::filesystem::path dir =
      std::filesystem::path(POSLAB_DOCS_DIR) / ".." / "core" / "tasks";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  // `std::string id() const override { return "ID"; }`
  const std::regex idRe("std::string id\\(\\) const override \\{ return \"([^\"]+)\"; \\}");
  int generators = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".cpp") continue;
    const std::string text = readText(entry.path());
    if (text.find(": public Task {") == std::string::npos) continue;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(text, m, idRe))
        << entry.path().filename() << ": a Task without a literal id()";
    const std::string id = m[1];
    ++generators;
    const TaskInfo* info = findTaskInfo(id);
    ASSERT_NE(info, nullptr) << entry.path().filename() << ": task '" << id
                             << "' has no TaskInfo in the registry (task_registry.cpp)";
    EXPECT_NE(text.find("TaskInfo& "), std::string::npos)
        << entry.path().filename() << ": the declaration belongs in the task's own file";
    EXPECT_NE(text.find("i.id = \"" + id + "\""), std::string::npos)
        << entry.path().filename() << " declares another id than its task's";
  }
  EXPECT_EQ(generators, static_cast<int>(allTasks().size()))
      << "a declaration without a generator in core/tasks, or the other way round";
}

TEST(TaskRegistry, IdsAreUniqueAndLookupNamesTheUnknown) {
  std::vector<std::string> ids = taskIds();
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
  try {
    taskInfo("no-such-task");
    FAIL() << "an unknown task was found";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-task"), std::string::npos);
  }
  EXPECT_EQ(findTaskInfo("no-such-task"), nullptr);
}

// The declared facts agree with the built task: the kernels, the label a form gives them, the
// capabilities the live views rely on, and the evaluation variant.
TEST(TaskRegistry, DeclarationsAgreeWithTheBuiltTasks) {
  for (const TaskInfo* info : allTasks()) {
    SCOPED_TRACE(info->id);
    ASSERT_NE(info->make, nullptr);
    EXPECT_EQ(info->kernelChoices.empty(), info->defaultKernel.empty());
    EXPECT_EQ(info->kernelChoices.empty(), info->kernelLabel.empty());
    EXPECT_EQ(info->kernelChoices.empty(), info->kernelHelp.empty());
    if (!info->defaultKernel.empty())
      EXPECT_NE(
          std::find(info->kernelChoices.begin(), info->kernelChoices.end(), info->defaultKernel),
          info->kernelChoices.end());
    if (!canBuild(*info)) continue;  // the default corpus is not installed
    const TaskConfig c = defaultConfig(*info);
    const auto task = makeTask(c);
    EXPECT_EQ(task->id(), info->id);
    const long long T = c.trainLength;
    EXPECT_EQ(info->capabilities.lagResponse, !task->labelWeights(T).empty());
    EXPECT_EQ(info->capabilities.distanceAccuracy, !task->accuracyDistances(T).empty());
    EXPECT_EQ(info->capabilities.teacherAttention, !task->teacherAttention(T).empty());
    // Every kernel the form offers builds.
    for (const std::string& kernel : info->kernelChoices) {
      TaskConfig k = c;
      k.kernel = kernel;
      EXPECT_NO_THROW(makeTask(k)) << kernel;
    }
    // The evaluation variant is the task with the declared options, and without any it is the
    // task itself: the same batch for the same seed.
    const auto evaluation = makeEvaluationTask(c);
    TaskConfig declared = c;
    for (const auto& [name, value] : info->evaluationOptions) declared.options[name] = value;
    const Batch want = makeTask(declared)->sample(2, T, 11), got = evaluation->sample(2, T, 11);
    EXPECT_TRUE(got.tokens.equal(want.tokens));
    if (info->evaluationOptions.empty())
      EXPECT_TRUE(got.tokens.equal(task->sample(2, T, 11).tokens));
    else
      EXPECT_FALSE(got.tokens.equal(task->sample(2, T, 11).tokens)) << "no held-out part";
  }
}

// An option declared negativeMeansDefault gives the task its default when negative; the
// others' ranges are the task's own (test_live_inspection.cpp checks them in full).
TEST(TaskRegistry, NegativeMeansDefaultIsTheTasksDefault) {
  int checked = 0;
  for (const TaskInfo* info : allTasks()) {
    if (!info->optionSpecs || !canBuild(*info)) continue;
    const TaskConfig c = defaultConfig(*info);
    for (const TaskOptionSpec& spec : info->optionSpecs(c)) {
      if (!spec.negativeMeansDefault) continue;
      TaskConfig negative = c, explicitDefault = c;
      negative.options[spec.name] = -1;
      explicitDefault.options[spec.name] = spec.defaultValue;
      const long long T = c.trainLength;
      EXPECT_EQ(makeTask(negative)->targetKernel(T), makeTask(explicitDefault)->targetKernel(T))
          << info->id << " " << spec.name;
      ++checked;
    }
  }
  EXPECT_GE(checked, 1) << "sector-teacher's omega declares negativeMeansDefault";
}

}  // namespace
}  // namespace poslab
