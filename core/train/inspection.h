// What the live views ask of a trained model, as plain data (no torch), so that the UI and the
// CLI can carry it across threads: attention maps of one sample input and per-example predictions
// on a few sample inputs. Trainer::attentionSample and Trainer::samplePredictions fill them; both
// draw their inputs from one seeded sample stream, so example 0 of the predictions is the input
// the attention maps were computed on.
#pragma once

#include <cmath>
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

// What a trained bits-then-QUERY model (kernel-lm, sector-teacher) learned, lag by lag: flip the
// bit d tokens before the QUERY and watch the answer's margin m = logit(1) - logit(0) move. For a
// model whose margin is c + sum_d k(d) x_d (x = 2 bit - 1), response(d) = k(d) exactly; otherwise
// it is the mean local slope. target(d) is the task's label weight, so the two can be compared
// inside and beyond the training length.
struct LagResponse {
  long long length = 0;         // T of the probe sequences
  long long trainLength = 0;    // the run's training length
  long long samples = 0;        // sequences averaged over
  std::vector<long long> lags;  // probed lags d, ascending, in [1, T-1]
  std::vector<double>
      response;                // mean over samples of (m - m with bit d flipped) * x_d / 2, logits
  std::vector<double> target;  // the task's label weight at each lag
};

// Cosine similarity (uncentred) of response and target over the probed lags in [fromLag, toLag];
// NaN when there are none or either is zero there.
double lagResponseCosine(const LagResponse& r, long long fromLag, long long toLag);
// For independent random signs x_d, the sums sum_d x_d a(d) and sum_d x_d b(d) have correlation
// cos(a, b) and are close to jointly Gaussian, so their signs agree with probability
// 1 - arccos(cos) / pi: the accuracy a readout that uses `a` as its kernel would reach on labels
// made with `b`. NaN for a NaN cosine.
double signAgreementFromCosine(double cosine);

// The numbers `poslab-cli response` and the Learned kernel tab report for one probe.
struct LagResponseSummary {
  double cosineAll = NAN;      // over lags 1..length-1
  double cosineTrained = NAN;  // over lags 1..trainLength-1
  double cosineBeyond = NAN;   // over lags trainLength..length-1 (NaN when the probe is not longer)
  double impliedAccuracy = NAN;  // signAgreementFromCosine(cosineAll)
};
LagResponseSummary summarizeLagResponse(const LagResponse& r);

}  // namespace poslab
