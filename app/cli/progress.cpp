#include "cli/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace poslab::cli {

ProgressBar::ProgressBar(std::string label, long long total)
    : label_(std::move(label)),
      total_(std::max(1LL, total)),
      tty_(isatty(fileno(stderr)) != 0),
      start_(std::chrono::steady_clock::now()) {}

void ProgressBar::update(const Snapshot& s) {
  const double frac = static_cast<double>(s.step) / total_;
  const int decile = static_cast<int>(frac * 10);
  if (!tty_ && decile == lastDecile_ && s.step != total_) return;
  lastDecile_ = decile;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = s.step > 0 ? elapsed / s.step * (total_ - s.step) : 0;
  char bar[21];
  const int filled = static_cast<int>(frac * 20);
  for (int i = 0; i < 20; ++i) bar[i] = i < filled ? '#' : '.';
  bar[20] = '\0';
  char acc[32] = "";
  if (!std::isnan(s.accuracy)) std::snprintf(acc, sizeof acc, " acc %.3f", s.accuracy);
  std::fprintf(stderr, "%s%s [%s] step %lld/%lld loss %.4f%s %.0f tok/s ETA %.0fs%s",
               tty_ ? "\r" : "", label_.c_str(), bar, s.step, total_, s.loss, acc,
               s.tokensPerSecond, eta, tty_ ? "   " : "\n");
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (tty_) std::fprintf(stderr, "\n");
}

}  // namespace poslab::cli
