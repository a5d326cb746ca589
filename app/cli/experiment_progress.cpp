#include "cli/experiment_progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace poslab::cli {

std::string runLabel(size_t index, size_t total, const RunResult& run) {
  return "[" + std::to_string(index + 1) + "/" + std::to_string(total) + "] " +
         (run.variant.empty() ? "" : run.variant + " ") + run.family + " seed " +
         std::to_string(run.seed);
}

ExperimentProgressView::ExperimentProgressView(long long stepsPerRun, int jobs)
    : stepsPerRun_(std::max(1LL, stepsPerRun)),
      jobs_(jobs),
      tty_(isatty(fileno(stderr)) != 0),
      start_(std::chrono::steady_clock::now()) {}

void ExperimentProgressView::update(size_t index, size_t total, const RunResult& run,
                                    const Snapshot& snap) {
  if (jobs_ <= 1) {
    if (index != current_) {
      if (bar_) bar_->finish();
      current_ = index;
      bar_ = std::make_unique<ProgressBar>(runLabel(index, total, run), stepsPerRun_);
    }
    bar_->update(snap);
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  auto it = active_.find(index);
  if (it == active_.end()) {
    Active a;
    a.label = runLabel(index, total, run);
    a.shortLabel = (run.variant.empty() ? "" : run.variant + " ") + run.family + " s" +
                   std::to_string(run.seed);
    it = active_.emplace(index, a).first;
  }
  it->second.step = snap.step;
  it->second.loss = snap.loss;
  it->second.accuracy = snap.accuracy;
  // Redraw the live line at most 10 times a second.
  if (tty_ && now - lastDraw_ > std::chrono::milliseconds(100)) {
    lastDraw_ = now;
    drawLive(total);
  }
}

void ExperimentProgressView::runDone(size_t index, size_t total, const RunResult& run) {
  if (jobs_ <= 1) {
    if (!run.error.empty()) {
      if (bar_) bar_->finish();
      bar_.reset();
      std::fprintf(stderr, "%s failed: %s\n", runLabel(index, total, run).c_str(),
                   run.error.c_str());
    }
    return;
  }
  auto it = active_.find(index);
  const std::string label = runLabel(index, total, run);
  std::string text = label;
  char part[160];
  if (!run.error.empty()) {
    text += " failed: " + run.error;
  } else if (it != active_.end()) {
    std::snprintf(part, sizeof part, " done: %lld steps, loss %.4f", it->second.step,
                  it->second.loss);
    text += part;
    if (!std::isnan(it->second.accuracy)) {
      std::snprintf(part, sizeof part, ", acc %.3f", it->second.accuracy);
      text += part;
    }
  } else {
    text += " done";
  }
  std::snprintf(part, sizeof part, ", %.0f s", run.seconds);
  if (run.error.empty()) text += part;
  std::fprintf(stderr, "%s%s\n", tty_ ? "\r\033[K" : "", text.c_str());
  if (it != active_.end()) active_.erase(it);
  ++finished_;
  if (tty_) drawLive(total);
}

void ExperimentProgressView::drawLive(size_t total) {
  long long doneSteps = static_cast<long long>(finished_) * stepsPerRun_;
  std::string runs;
  for (const auto& [index, a] : active_) {
    doneSteps += a.step;
    char part[160];
    std::snprintf(part, sizeof part, "%s%s %lld/%lld loss %.3f", runs.empty() ? "" : " | ",
                  a.shortLabel.c_str(), a.step, stepsPerRun_, a.loss);
    runs += part;
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const long long allSteps = static_cast<long long>(total) * stepsPerRun_;
  const double eta = doneSteps > 0 ? elapsed / doneSteps * (allSteps - doneSteps) : 0;
  char head[64];
  std::snprintf(head, sizeof head, "%zu/%zu runs done, ETA %.0fs: ", finished_, total, eta);
  std::string text = head + runs;
  // One terminal row, or the carriage return cannot redraw it.
  winsize ws{};
  const size_t width =
      ioctl(fileno(stderr), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
  if (text.size() >= width) text = text.substr(0, width - 1);
  std::fprintf(stderr, "\r\033[K%s", text.c_str());
  std::fflush(stderr);
}

void ExperimentProgressView::finish() {
  if (bar_) bar_->finish();
  if (jobs_ > 1 && tty_) std::fprintf(stderr, "\r\033[K");
}

}  // namespace poslab::cli
