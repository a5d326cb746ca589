// The task registry: the one list of the tasks' declarations (each in its own file, task_info.h),
// and what is looked up through it. Adding a task: its file with its TaskInfo, one line here.
#include "tasks/task.h"
#include "tasks/task_common.h"
#include "tasks/task_info.h"
#include "util/error.h"

namespace poslab {

Batch Task::sampleAtDistance(long long /*batch*/, long long /*length*/, long long /*distance*/,
                             uint64_t /*seed*/) const {
  throw InvalidArgument("task '" + id() + "' has no distance to sample at",
                        "only tasks with accuracyDistances() (kv-retrieval) do");
}

const std::vector<const TaskInfo*>& allTasks() {
  static const std::vector<const TaskInfo*> kAll = {
      &indirectIndexingTaskInfo(), &kernelLmTaskInfo(), &kvRetrievalTaskInfo(),
      &sectorTeacherTaskInfo(),    &byteLmTaskInfo(),
  };
  return kAll;
}

const TaskInfo* findTaskInfo(const std::string& id) {
  for (const TaskInfo* info : allTasks())
    if (info->id == id) return info;
  return nullptr;
}

const TaskInfo& taskInfo(const std::string& id) {
  if (const TaskInfo* info = findTaskInfo(id)) return *info;
  std::string list;
  for (const auto& known : taskIds()) list += (list.empty() ? "" : ", ") + known;
  throw InvalidArgument("unknown task '" + id + "'", "known tasks: " + list);
}

std::vector<std::string> taskIds() {
  std::vector<std::string> ids;
  for (const TaskInfo* info : allTasks()) ids.push_back(info->id);
  return ids;
}

bool taskTakesText(const std::string& id) {
  const TaskInfo* info = findTaskInfo(id);
  return info && info->takesText;
}

std::unique_ptr<Task> makeTask(const TaskConfig& config) {
  return taskInfo(config.id).make(config);
}

namespace {
TaskConfig evaluationConfig(const TaskInfo& info, TaskConfig config) {
  for (const auto& [name, value] : info.evaluationOptions) config.options[name] = value;
  return config;
}
std::unique_ptr<Task> makeOutlineOf(const TaskInfo& info, const TaskConfig& config) {
  return (info.makeOutline ? info.makeOutline : info.make)(config);
}
}  // namespace

std::unique_ptr<Task> makeEvaluationTask(const TaskConfig& config) {
  const TaskInfo& info = taskInfo(config.id);
  return info.make(evaluationConfig(info, config));
}

std::unique_ptr<Task> makeTaskOutline(const TaskConfig& config) {
  return makeOutlineOf(taskInfo(config.id), config);
}

std::unique_ptr<Task> makeEvaluationTaskOutline(const TaskConfig& config) {
  const TaskInfo& info = taskInfo(config.id);
  return makeOutlineOf(info, evaluationConfig(info, config));
}

}  // namespace poslab
