#include "cli/experiment_progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace poslab::cli {

std::string runLabel(size_t index, size_t total, const RunResult& run) {
  return "[" + std::to_string(index + 1) + "/" + std::to_string(total) + "] " +
         (run.variant.empty() ? "" : run.variant + " ") + run.family + " seed " +
         std::to_string(run.seed);
}

ExperimentProgressView::ExperimentProgressView(long long stepsPerRun, int jobs,
                                               std::vector<RunWork> work, size_t runs)
    : stepsPerRun_(std::max(1LL, stepsPerRun)),
      jobs_(jobs),
      tty_(isatty(fileno(stderr)) != 0),
      start_(std::chrono::steady_clock::now()),
      work_(std::move(work)),
      runs_(runs) {
  double sum = 0;
  for (const RunWork& w : work_) sum += w.total();
  meanWork_ = work_.empty() ? 0 : sum / static_cast<double>(work_.size());
}

RunWork ExperimentProgressView::workOf(size_t index) const {
  return index < work_.size() ? work_[index] : RunWork{};
}

double ExperimentProgressView::workDone(const Active& a, const RunWork& w) {
  if (a.evaluating.empty())
    return static_cast<double>(a.step) * w.perStep +
           static_cast<double>(w.evaluationsAfter(a.step)) * w.perEvaluation;
  // The evaluation after step evalStep, a fraction of the way: the ones before it are done.
  const double before = static_cast<double>(std::max(0LL, w.evaluationsAfter(a.evalStep) - 1));
  return static_cast<double>(a.evalStep) * w.perStep + (before + a.evalFraction) * w.perEvaluation;
}

ExperimentProgressView::Active& ExperimentProgressView::activeRun(size_t index, size_t total,
                                                                  const RunResult& run) {
  auto it = active_.find(index);
  if (it == active_.end()) {
    Active a;
    a.label = runLabel(index, total, run);
    a.shortLabel = (run.variant.empty() ? "" : run.variant + " ") + run.family + " s" +
                   std::to_string(run.seed);
    it = active_.emplace(index, a).first;
  }
  return it->second;
}

void ExperimentProgressView::update(size_t index, size_t total, const RunResult& run,
                                    const Snapshot& snap) {
  Active& a = activeRun(index, total, run);
  a.step = snap.step;
  a.loss = snap.loss;
  a.accuracy = snap.accuracy;
  a.evaluating.clear();  // a snapshot comes after its step's evaluation
  if (jobs_ <= 1) {
    if (index != current_ || !bar_) {
      if (bar_) bar_->finish();
      current_ = index;
      bar_ = std::make_unique<ProgressBar>(runLabel(index, total, run), stepsPerRun_);
    }
    bar_->update(snap);
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (!tty_) {
    // Off a terminal a plain line at each tenth of the run's steps, as one job's bar prints them.
    const int decile = static_cast<int>(10 * snap.step / stepsPerRun_);
    if (decile == a.decile) return;
    a.decile = decile;
    char part[160];
    std::snprintf(part, sizeof part, " step %lld/%lld loss %.4f", snap.step, stepsPerRun_,
                  snap.loss);
    std::string text = a.label + part;
    if (!std::isnan(snap.accuracy)) {
      std::snprintf(part, sizeof part, " acc %.3f", snap.accuracy);
      text += part;
    }
    std::fprintf(stderr, "%s; %s\n", text.c_str(), experimentEta(total).c_str());
    std::fflush(stderr);
    return;
  }
  // Redraw the live line at most 10 times a second.
  if (now - lastDraw_ > std::chrono::milliseconds(100)) {
    lastDraw_ = now;
    drawLive(total);
  }
}

void ExperimentProgressView::evaluation(size_t index, size_t total, const RunResult& run,
                                        const EvaluationProgress& at) {
  Active& a = activeRun(index, total, run);
  const auto now = std::chrono::steady_clock::now();
  if (a.evaluating.empty()) {  // its first batch
    a.evalStart = now;
    a.evalLinePrinted = false;
  }
  const double perLength = static_cast<double>(std::max(1LL, at.perLength));
  const double frac =
      (static_cast<double>(at.lengthIndex) + static_cast<double>(at.done) / perLength) /
      static_cast<double>(std::max<size_t>(1, at.lengthCount));
  char part[200];
  std::snprintf(part, sizeof part, "eval T=%lld %.0f%%", at.length, 100 * frac);
  a.evaluating = part;
  a.evalStep = at.step;
  a.evalFraction = frac;
  if (tty_ && jobs_ > 1) {
    if (now - lastDraw_ > std::chrono::milliseconds(100)) {
      lastDraw_ = now;
      drawLive(total);
    }
    return;
  }
  // A plain line once the evaluation has taken kEvaluationLineSeconds, then at most one per
  // kEvaluationLineSeconds: the short evaluations every eval_every steps print none.
  const auto every = std::chrono::duration<double>(kEvaluationLineSeconds);
  if (now - a.evalStart < every || (a.evalLinePrinted && now - a.lastEvalLine < every)) return;
  a.evalLinePrinted = true;
  a.lastEvalLine = now;
  const double elapsed = std::chrono::duration<double>(now - a.evalStart).count();
  const double eta = frac > 0 ? elapsed / frac * (1 - frac) : 0;
  std::snprintf(part, sizeof part,
                " evaluation after step %lld: T = %lld (length %zu of %zu), %lld/%lld sequences, "
                "ETA %.0fs",
                at.step, at.length, at.lengthIndex + 1, at.lengthCount, at.done, at.perLength, eta);
  // On a terminal the line replaces the bar's, which is drawn again below it at the next step.
  std::fprintf(stderr, "%s%s%s\n", tty_ ? "\r\033[K" : "", a.label.c_str(), part);
  std::fflush(stderr);
}

void ExperimentProgressView::runDone(size_t index, size_t total, const RunResult& run) {
  finishedWork_ += workOf(index).total();
  if (jobs_ <= 1) {
    active_.erase(index);
    ++finished_;
    if (bar_) bar_->finish();
    bar_.reset();
    if (!run.error.empty())
      std::fprintf(stderr, "%s failed: %s\n", runLabel(index, total, run).c_str(),
                   run.error.c_str());
    // The sweep's ETA after each run: the bar's counts only that run's steps.
    if (finished_ < runs_) std::fprintf(stderr, "%s\n", experimentEta(total).c_str());
    std::fflush(stderr);
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

std::string ExperimentProgressView::experimentEta(size_t /*total*/) const {
  const size_t runs = std::max(runs_, finished_ + active_.size());
  const size_t unstarted = runs - finished_ - active_.size();
  // Work done here and left (RunWork: steps and evaluations by their estimated multiply-adds),
  // the runs not started yet at the mean of the planned ones.
  double done = finishedWork_, left = static_cast<double>(unstarted) * meanWork_;
  for (const auto& [index, a] : active_) {
    const RunWork w = workOf(index);
    const double d = workDone(a, w);
    done += d;
    left += std::max(0.0, w.total() - d);
  }
  if (meanWork_ <= 0) {  // no estimate (a task that cannot be built here): steps only
    done = static_cast<double>(finished_) * static_cast<double>(stepsPerRun_);
    for (const auto& [index, a] : active_) done += static_cast<double>(a.step);
    left = static_cast<double>(runs) * static_cast<double>(stepsPerRun_) - done;
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = done > 0 ? elapsed / done * std::max(0.0, left) : 0;
  char text[96];
  std::snprintf(text, sizeof text, "%zu/%zu runs done, ETA %.0fs", finished_, runs, eta);
  return text;
}

void ExperimentProgressView::drawLive(size_t total) {
  std::string runs;
  for (const auto& [index, a] : active_) {
    char part[160];
    if (a.evaluating.empty())
      std::snprintf(part, sizeof part, "%s%s %lld/%lld loss %.3f", runs.empty() ? "" : " | ",
                    a.shortLabel.c_str(), a.step, stepsPerRun_, a.loss);
    else
      std::snprintf(part, sizeof part, "%s%s %s", runs.empty() ? "" : " | ", a.shortLabel.c_str(),
                    a.evaluating.c_str());
    runs += part;
  }
  std::string text = experimentEta(total) + ": " + runs;
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
