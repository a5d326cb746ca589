// Value types a training run reports: plain data, safe to copy across threads and into the UI.
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace poslab {

struct EvalResult {
  long long length = 0;
  double loss = NAN;
  double accuracy = NAN;  // NaN for tasks without accuracy
  // Tasks with accuracyDistances() (kv-retrieval): distance -> accuracy on sequences whose every
  // example has that distance, at the reference's distance points below this length.
  std::map<long long, double> accuracyByDistance;
  // Tasks with teacherAttention() (sector-teacher), up to kMaxFinalQueryStatsLength: the mean
  // entropy (nats) and effective support exp(H) of the last layer's final-query attention over the
  // keys before it (analysis/final_query_attention.h); NaN otherwise.
  double finalQueryEntropy = NAN;
  double finalQuerySupport = NAN;
};

// The longest evaluation that reports final-query attention: it records (B, H, T, T) weights.
inline constexpr long long kMaxFinalQueryStatsLength = 4096;

// What a snapshot reports; the UI and the tests branch on this, never on the message text.
enum class SnapshotEvent {
  Step,      // an optimisation step (with an evaluation when eval is filled)
  Finished,  // the last step of the run: it will not step again
  Reset,     // a fresh model at step 0 (its initial position parameters)
  Diverged,  // the step failed (non-finite loss or gradient) and the worker paused itself
  Notice,    // no new step: a message only (e.g. a parameter could not be set)
  // The run could not be built (its task's data, its model): the message says why. The worker
  // holds no trainer and takes no step until a reset builds one.
  Failed,
  // No new step: the evaluation after the run's last step is under way (minutes at a paper's
  // lengths); `message` says where and how long is left ("evaluation after step 1200: T = 8192
  // (length 4 of 4), 12/32 sequences, ETA 95 s"), `evaluationDone` how much of it is done. At
  // most one a second; step is 0.
  Evaluating,
};

struct Snapshot {
  SnapshotEvent event = SnapshotEvent::Step;
  long long step = 0;     // optimisation steps done
  double loss = NAN;      // training loss of the last step
  double accuracy = NAN;  // training accuracy of the last step (NaN: none)
  double lr = 0;
  double gradNorm = 0;  // before clipping
  double tokensPerSecond = 0;
  std::map<std::string, std::vector<double>>
      position;  // learned position parameters, mean over layers
  // The same per layer, layer 0 first, filled whenever position is (position is their
  // meanOverLayers): the training panel's per-layer view, as `poslab-cli train --per-layer`.
  std::vector<std::map<std::string, std::vector<double>>> positionLayers;
  std::vector<EvalResult> eval;  // filled on evaluation steps
  std::string message;           // for people: why the run stopped, what failed (may be empty)
  double evaluationDone = NAN;   // Evaluating: the fraction of the evaluation done, 0..1
};

}  // namespace poslab
