#include "bridge/inspect_pope_usage.h"

namespace poslab::ui {

InspectionKind popeUsageInspection() {
  return makeInspectionKind<PopeUsageArgs, TrainingPopeUsage>(
      kPopeUsageInspection,
      [](const InspectedModel& m, const PopeUsageArgs& a, TrainingPopeUsage& u, const KeepGoing&) {
        u.usage = popeFrequencyUsage(m, a.length, a.sequences);
      });
}

}  // namespace poslab::ui
