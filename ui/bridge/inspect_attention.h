// Inspection kind "attention" (inspection.h): the trained model's attention maps on the sample
// input (core's attentionSample), for the Attention tab (training/model_attention_view.h).
#pragma once

#include <QMetaType>

#include <string>

#include "bridge/inspection.h"
#include "train/inspection.h"  // AttentionSample: plain data

namespace poslab::ui {

inline constexpr const char* kAttentionInspection = "attention";

struct AttentionArgs {
  long long length = 0;   // T of the sample input
  long long maxSide = 0;  // maps are pooled to at most maxSide x maxSide
};

struct TrainingAttention {
  long long step = 0;              // steps the model had taken
  poslab::AttentionSample sample;  // [layer][head] maps
  std::string error;               // non-empty: why there are no maps
};

InspectionKind attentionInspection();

}  // namespace poslab::ui

Q_DECLARE_METATYPE(poslab::ui::AttentionArgs)
Q_DECLARE_METATYPE(poslab::ui::TrainingAttention)
