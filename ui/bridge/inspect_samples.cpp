#include "bridge/inspect_samples.h"

#include "tasks/task_info.h"
#include "train/train_config.h"

namespace poslab::ui {

InspectionKind samplesInspection() {
  return makeInspectionKind<SamplesArgs, TrainingSamples>(
      kSamplesInspection,
      [](const InspectedModel& m, const SamplesArgs& a, TrainingSamples& s, const KeepGoing&) {
        const TaskConfig& task = m.config.task;
        s.taskId = task.id;
        s.examples = samplePredictions(m, a.count, a.length > 0 ? a.length : task.trainLength);
        const TaskInfo* info = findTaskInfo(task.id);
        if (info && info->capabilities.decodedExamples)
          for (const auto& e : s.examples)
            s.indirect.push_back(decodeIndirectIndexing(task, e.tokens, e.prediction));
      });
}

}  // namespace poslab::ui
