// A one-line progress bar on stderr: step, loss, accuracy, tokens/s, ETA (or, for work that is not
// training, items done and ETA). On a terminal it redraws in place; otherwise (CI logs) it prints
// a line every 10%.
#pragma once

#include <chrono>
#include <string>

#include "train/snapshot.h"

namespace poslab::cli {

class ProgressBar {
 public:
  ProgressBar(std::string label, long long total);
  void update(const Snapshot& s);
  // `done` of the total items (e.g. "sequences") finished.
  void updateCount(long long done, const std::string& unit);
  void finish();

 private:
  // "label [####......] <prefix>done/total <detail> ETA 12s"
  void draw(long long done, const std::string& prefix, const std::string& detail);

  std::string label_;
  long long total_;
  bool tty_;
  int lastDecile_ = -1;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point lastDraw_;
};

}  // namespace poslab::cli
