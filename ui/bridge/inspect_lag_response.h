// Inspection kind "lag-response" (inspection.h): what the trained model learned lag by lag (core's
// measureLagResponse: flip the bit d tokens before the QUERY, watch the answer's margin) next to
// the task's kernel, with the CLI's summary (`poslab-cli response`): cosines over all lags, the
// trained lags 1..T-1 and the lags beyond, and the accuracy a linear readout with the learned
// kernel would reach (signAgreementFromCosine). Only tasks with the lagResponse capability
// (task_info.h) have it; others come back with `error`. For the Learned kernel tab
// (training/lag_response_view.h). Costs seconds at long lengths: ask on demand.
#pragma once

#include <QMetaType>
#include <QString>

#include "bridge/inspection.h"
#include "train/inspection.h"  // LagResponse: plain data

namespace poslab::ui {

inline constexpr const char* kLagResponseInspection = "lag-response";

struct LagResponseArgs {
  long long length = 0;   // probe length T
  long long samples = 0;  // sequences averaged over (at most 128 lags are probed)
};

struct TrainingLagResponse {
  long long step = 0;
  poslab::LagResponse response;
  poslab::LagResponseSummary summary;  // core's summarizeLagResponse(response)
  QString error;                       // non-empty: why there is no response
};

InspectionKind lagResponseInspection();

}  // namespace poslab::ui

Q_DECLARE_METATYPE(poslab::ui::LagResponseArgs)
Q_DECLARE_METATYPE(poslab::ui::TrainingLagResponse)
