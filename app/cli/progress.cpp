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
  char detail[96];
  std::snprintf(detail, sizeof detail, "loss %.4f", s.loss);
  std::string d = detail;
  if (!std::isnan(s.accuracy)) {
    std::snprintf(detail, sizeof detail, " acc %.3f", s.accuracy);
    d += detail;
  }
  std::snprintf(detail, sizeof detail, " %.0f tok/s", s.tokensPerSecond);
  draw(s.step, "step ", d + detail);
}

void ProgressBar::updateCount(long long done, const std::string& unit) {
  draw(done, "", unit);
}

void ProgressBar::draw(long long done, const std::string& prefix, const std::string& detail) {
  const double frac = static_cast<double>(done) / total_;
  const int decile = static_cast<int>(frac * 10);
  if (!tty_ && decile == lastDecile_ && done != total_) return;
  const auto now = std::chrono::steady_clock::now();
  // On a terminal at most 10 redraws a second: work that reports every millisecond (an Adam step
  // of diagnose) would spend its time drawing.
  if (tty_ && done != total_ && lastDecile_ >= 0 &&
      now - lastDraw_ < std::chrono::milliseconds(100))
    return;
  lastDecile_ = decile;
  lastDraw_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double eta = done > 0 ? elapsed / done * (total_ - done) : 0;
  char bar[21];
  const int filled = static_cast<int>(frac * 20);
  for (int i = 0; i < 20; ++i) bar[i] = i < filled ? '#' : '.';
  bar[20] = '\0';
  std::fprintf(stderr, "%s%s [%s] %s%lld/%lld %s ETA %.0fs%s", tty_ ? "\r" : "", label_.c_str(),
               bar, prefix.c_str(), done, total_, detail.c_str(), eta, tty_ ? "   " : "\n");
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (tty_) std::fprintf(stderr, "\n");
}

}  // namespace poslab::cli
