// Bridge TU: core's lag response takes tensors (ATen).
#include "bridge/inspect_lag_response.h"

#include "train/lag_response.h"

namespace poslab::ui {

InspectionKind lagResponseInspection() {
  return makeInspectionKind<LagResponseArgs, TrainingLagResponse>(
      kLagResponseInspection, [](const InspectedModel& m, const LagResponseArgs& a,
                                 TrainingLagResponse& r, const KeepGoing& keepGoing) {
        // A stop (Reset all, a new setup, closing) does not wait for the rest of the probe.
        r.response = measureLagResponse(m, a.length, a.samples, /*maxLags=*/128,
                                        [&keepGoing](long long, long long) { return keepGoing(); });
        r.summary = summarizeLagResponse(r.response);
      });
}

}  // namespace poslab::ui
