// What the live views ask of a trained model, as plain data (no torch), so that the UI and the
// CLI can carry it across threads: attention maps of one sample input and per-example predictions
// on a few sample inputs. Trainer::attentionSample and Trainer::samplePredictions fill them; both
// draw their inputs from one seeded sample stream, so example 0 of the predictions is the input
// the attention maps were computed on.
#pragma once

#include <string>
#include <vector>

namespace poslab {

// Attention of the trained model on one sample input, per layer and head, downsampled.
struct AttentionSample {
  long long length = 0;  // T of the sample
  long long size = 0;    // side of each downsampled map (<= maxSide); size == length: exact
  std::vector<std::vector<std::vector<double>>> maps;  // [layer][head] -> size * size row-major
};

// The model's answer on one sample input: the first scored position (the answer position of
// accuracy tasks, else the last position with a target).
struct ExamplePrediction {
  std::vector<long long> tokens;  // (T) the input
  long long position = -1;        // scored position, -1 when the example has none
  long long target = -1;          // the task's target token there
  long long prediction = -1;      // argmax of the model's logits there
  double confidence = 0;          // softmax probability of `prediction`
  bool correct() const { return position >= 0 && prediction == target; }
};

}  // namespace poslab
