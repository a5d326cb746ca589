#include "tasks/task_options.h"

#include <exception>

#include "tasks/task.h"
#include "tasks/task_info.h"

namespace poslab {

std::vector<TaskOptionSpec> taskOptionSpecs(const TaskConfig& c) {
  const TaskInfo* info = findTaskInfo(c.id);
  return info && info->optionSpecs ? info->optionSpecs(c) : std::vector<TaskOptionSpec>{};
}

std::vector<std::string> taskKernelChoices(const std::string& taskId) {
  const TaskInfo* info = findTaskInfo(taskId);
  return info ? info->kernelChoices : std::vector<std::string>{};
}

std::string taskDefaultKernel(const std::string& taskId) {
  const TaskInfo* info = findTaskInfo(taskId);
  return info ? info->defaultKernel : std::string();
}

long long taskMinLength(const TaskConfig& config) {
  if (taskTakesText(config.id)) return 0;
  try {
    return makeTask(config)->minLength();
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace poslab
