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
};

struct Snapshot {
  long long step = 0;     // optimisation steps done
  double loss = NAN;      // training loss of the last step
  double accuracy = NAN;  // training accuracy of the last step (NaN: none)
  double lr = 0;
  double gradNorm = 0;  // before clipping
  double tokensPerSecond = 0;
  std::map<std::string, std::vector<double>> position;  // learned position parameters (layer 0)
  std::vector<EvalResult> eval;                         // filled on evaluation steps
  std::string message;                                  // e.g. why the run stopped
  bool diverged = false;  // the step failed (non-finite loss or gradient): the worker
                          // paused itself; message says which step and what
};

}  // namespace poslab
