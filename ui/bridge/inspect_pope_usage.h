// Inspection kind "pope-usage" (inspection.h): how much of each layer's score each PoPE frequency
// carries (core's popeFrequencyUsage, MATH 4.6, as `poslab-cli pope-usage` prints it). Only PoPE
// runs have it; others come back with `error` naming their family. For the Frequency usage tab
// (training/pope_usage_view.h). One forward pass per batch of sequences: fast, but ask on demand.
#pragma once

#include <QMetaType>
#include <QString>

#include "analysis/pope_frequency_usage.h"  // plain data, no torch
#include "bridge/inspection.h"

namespace poslab::ui {

inline constexpr const char* kPopeUsageInspection = "pope-usage";

struct PopeUsageArgs {
  long long length = 0;     // T of the sequences
  long long sequences = 0;  // sequences averaged over
};

struct TrainingPopeUsage {
  long long step = 0;
  poslab::PopeFrequencyUsage usage;
  QString error;  // non-empty: why there is no usage
};

InspectionKind popeUsageInspection();

}  // namespace poslab::ui

Q_DECLARE_METATYPE(poslab::ui::PopeUsageArgs)
Q_DECLARE_METATYPE(poslab::ui::TrainingPopeUsage)
