#include "bridge/inspect_attention.h"

namespace poslab::ui {

InspectionKind attentionInspection() {
  return makeInspectionKind<AttentionArgs, TrainingAttention>(
      kAttentionInspection,
      [](const InspectedModel& m, const AttentionArgs& a, TrainingAttention& r, const KeepGoing&) {
        r.sample = attentionSample(m, a.length, a.maxSide);
      });
}

}  // namespace poslab::ui
