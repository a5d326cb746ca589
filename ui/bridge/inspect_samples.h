// Inspection kind "samples" (inspection.h): the trained model's answers on a few sample inputs
// (core's samplePredictions), spelled out for tasks that declare decodedExamples (indirect
// indexing), for the Samples tab (training/sample_view.h).
#pragma once

#include <QMetaType>

#include <string>
#include <vector>

#include "bridge/inspection.h"
#include "tasks/indirect_indexing.h"  // plain data, no torch
#include "train/inspection.h"         // ExamplePrediction: plain data

namespace poslab::ui {

inline constexpr const char* kSamplesInspection = "samples";

struct SamplesArgs {
  long long count = 0;   // examples
  long long length = 0;  // T of each; 0: the run's train length
};

struct TrainingSamples {
  long long step = 0;
  std::string taskId;
  std::vector<poslab::ExamplePrediction> examples;
  std::vector<poslab::IndirectIndexingExample> indirect;  // decodedExamples tasks, per example
  std::string error;
};

InspectionKind samplesInspection();

}  // namespace poslab::ui

Q_DECLARE_METATYPE(poslab::ui::SamplesArgs)
Q_DECLARE_METATYPE(poslab::ui::TrainingSamples)
