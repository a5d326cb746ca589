// The task registry: ids and factories of the generators in this folder (layouts in each file).
#include "tasks/task.h"
#include "tasks/task_common.h"
#include "util/error.h"

namespace poslab {

Batch Task::sampleAtDistance(long long /*batch*/, long long /*length*/, long long /*distance*/,
                             uint64_t /*seed*/) const {
  throw InvalidArgument("task '" + id() + "' has no distance to sample at",
                        "only tasks with accuracyDistances() (kv-retrieval) do");
}

std::vector<std::string> taskIds() {
  return {"indirect-indexing", "kernel-lm", "kv-retrieval", "sector-teacher", "byte-lm"};
}

bool taskTakesText(const std::string& id) {
  return id == "byte-lm";
}

std::unique_ptr<Task> makeTask(const TaskConfig& config) {
  if (config.id == "indirect-indexing") return makeIndirectIndexingTask(config);
  if (config.id == "kernel-lm") return makeKernelLmTask(config);
  if (config.id == "kv-retrieval") return makeKvRetrievalTask(config);
  if (config.id == "sector-teacher") return makeSectorTeacherTask(config);
  if (config.id == "byte-lm") return makeByteLmTask(config);
  std::string list;
  for (const auto& id : taskIds()) list += (list.empty() ? "" : ", ") + id;
  throw InvalidArgument("unknown task '" + config.id + "'", "known tasks: " + list);
}

std::unique_ptr<Task> makeEvaluationTask(const TaskConfig& config) {
  if (config.id == "byte-lm") return makeByteLmHeldOutTask(config);
  return makeTask(config);
}

}  // namespace poslab
