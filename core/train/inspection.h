// What the live views and the CLI ask of a trained model: free functions over the model, its tasks
// and the run's seeds (an InspectedModel, which Trainer::inspected() gives), and their answers as
// plain data (no torch), so that the UI and the CLI can carry them across threads: attention maps
// of one sample input, per-example predictions on a few sample inputs (both drawn from one seeded
// sample stream, so example 0 of the predictions is the input the maps were computed on), the
// PoPE frequency usage (analysis/pope_frequency_usage.h) and, in lag_response.h, the lag response.
// Each function puts the model in evaluation mode and runs without gradient; none changes a
// weight, so a run inspected between two steps trains on exactly as it would have.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "analysis/pope_frequency_usage.h"  // PopeFrequencyUsage: plain data

namespace poslab {

struct TinyTransformerImpl;  // model/transformer.h
class Task;                  // tasks/task.h
struct TrainConfig;          // train/train_config.h

// What an inspection reads of a trained run. Valid while the run it came from lives and does not
// step (the worker runs inspections between steps).
struct InspectedModel {
  TinyTransformerImpl& model;  // its device is the run's
  const Task& task;            // the training task
  const Task& evalTask;        // the task evaluation draws from (makeEvaluationTask)
  const TrainConfig& config;   // run.seed seeds the sample inputs; run.eval_tokens_per_batch
                               // bounds a forward pass
};

// Attention of the trained model on one sample input, per layer and head, downsampled.
struct AttentionSample {
  long long length = 0;  // T of the sample
  long long size = 0;    // side of each downsampled map (<= maxSide); size == length: exact
  std::vector<std::vector<std::vector<double>>> maps;  // [layer][head] -> size * size row-major
};

// Attention weights of example 0 of the sample stream (seeded by run.seed, independent of the
// training and evaluation batches) at `length` tokens, pooled to at most maxSide x maxSide.
AttentionSample attentionSample(const InspectedModel& m, long long length, long long maxSide = 128);

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

// The model's prediction on examples 0 .. count-1 of the same sample stream (example 0 is the
// attentionSample input), at each example's first scored position. Throws InvalidArgument for
// count < 1.
std::vector<ExamplePrediction> samplePredictions(const InspectedModel& m, long long count,
                                                 long long length);

// How much of each layer's and head's score each PoPE frequency carries (MATH 4.6), on
// `sequences` sequences of length `length` from the evaluation task's own seeded stream
// (independent of training, evaluation and the sample inputs). Throws InvalidArgument naming the
// family for a non-PoPE run, and for sequences < 1 or a length the task cannot generate or an
// evaluation could not afford (checkEvaluationFits).
PopeFrequencyUsage popeFrequencyUsage(const InspectedModel& m, long long length,
                                      long long sequences = 16);

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
