#include "training/training_controller.h"

#include <QDir>

#include <algorithm>
#include <cmath>
#include <exception>

#include "bridge/trained_model.h"

namespace poslab::ui {

struct TrainingController::PendingSave {
  int generation = 0;  // the runs that were asked
  int remaining = 0;   // answers still to come
  std::vector<SavedCheckpoint> saved;
  QString error;  // the first failure
  CheckpointsSaved done;
};

TrainingController::TrainingController(QObject* parent) : QObject(parent) {
  setup_.name = "live";
  setup_.base.task.id = "kernel-lm";
  setup_.base.run.evalEvery = 50;      // a point on the length curve every 50 steps
  setup_.base.run.evalSequences = 32;  // small evaluations keep the live view moving
}

TrainingController::~TrainingController() {
  pendingSave_.reset();  // nobody to tell any more
  const QSignalBlocker quiet(this);
  clearRuns();
}

poslab::ExperimentSpec TrainingController::runningExperiment(
    const TrainingFormSettings& form) const {
  return runs_.empty() ? experiment(form) : running_;
}

long long TrainingController::stepCount() const {
  if (states_.empty()) return 0;
  long long s = states_.front().step;
  for (const RunState& r : states_) s = std::min(s, r.step);
  return s;
}

bool TrainingController::isPlaying() const {
  return std::any_of(runs_.begin(), runs_.end(), [](const auto& r) { return r->isPlaying(); });
}

bool TrainingController::allFinished() const {
  return !states_.empty() && std::all_of(states_.begin(), states_.end(), [](const RunState& s) {
    return s.finished || !s.failure.isEmpty();
  });
}

QString TrainingController::runFailure() const {
  for (size_t i = 0; i < states_.size(); ++i)
    if (!states_[i].failure.isEmpty())
      return QStringLiteral("%1: %2").arg(QString::fromStdString(runFamily(static_cast<int>(i))),
                                          states_[i].failure);
  return {};
}

void TrainingController::setStatus(const QString& text) {
  status_ = text;
  Q_EMIT statusChanged(text);
}

void TrainingController::setProgress(const QString& text) {
  if (text == progress_) return;
  progress_ = text;
  Q_EMIT progressChanged(text);
}

namespace {
// "45 s", "12 min", "3.2 h": how long is left, rounded as a person says it.
QString durationText(double seconds) {
  if (seconds < 90) return QObject::tr("%1 s").arg(qRound(seconds));
  if (seconds < 90 * 60) return QObject::tr("%1 min").arg(qRound(seconds / 60));
  return QObject::tr("%1 h").arg(seconds / 3600, 0, 'f', 1);
}
}  // namespace

void TrainingController::updateStepProgress() {
  const long long step = stepCount();
  const long long since = step - playStartStep_;
  if (!isPlaying() || runs_.empty() || !playClock_.isValid() || since <= 0) {
    if (!isPlaying()) setProgress({});
    return;
  }
  long long steps = 0;  // the longest run's
  for (const auto& r : runs_) steps = std::max(steps, r->spec().config.run.steps);
  const double perStep =
      static_cast<double>(playClock_.elapsed()) / 1000 / static_cast<double>(since);
  setProgress(tr("%1 of %2 steps, about %3 left (then the evaluation)")
                  .arg(step)
                  .arg(steps)
                  .arg(durationText(perStep * static_cast<double>(std::max(0LL, steps - step)))));
}

bool TrainingController::ensureRuns(const TrainingFormSettings& form) {
  QString error;
  const std::vector<TrainingRunSpec> specs = runSpecsFromForm(setup_, form, &error);
  if (specs.empty()) {
    setStatus(error);
    return false;
  }
  bool same = specs.size() == runs_.size();
  for (size_t i = 0; same && i < specs.size(); ++i) same = runs_[i]->spec() == specs[i];
  if (same) return true;
  if (!startRuns(specs, {}, experiment(form), &error)) {
    setStatus(error);
    return false;
  }
  setStatus(tr("%1 run(s) on %2, seed %3: identical batches")
                .arg(runs_.size())
                .arg(QString::fromStdString(specs.front().config.task.id))
                .arg(specs.front().config.run.seed));
  return true;
}

bool TrainingController::startFromCheckpoints(const poslab::ExperimentSpec& spec,
                                              const TrainingFormSettings& form,
                                              const QStringList& checkpoints, QString* error) {
  if (checkpoints.size() != static_cast<qsizetype>(spec.families.size())) {
    *error = tr("the setup trains %1 families but %2 checkpoints were given")
                 .arg(spec.families.size())
                 .arg(checkpoints.size());
    return false;
  }
  // Everything that can fail happens before the runs change: load each file, check its config.
  std::vector<std::unique_ptr<TrainedModel>> models;
  // Models preloadCheckpoints read off the UI thread are taken, once, whatever happens here.
  std::map<QString, std::shared_ptr<TrainedModel>> preloaded;
  preloaded.swap(preloaded_);
  for (const QString& path : checkpoints) {
    if (auto pre = preloaded.find(path); pre != preloaded.end() && pre->second) {
      models.push_back(TrainedModel::takeFrom(*pre->second));
      preloaded.erase(pre);  // a path listed twice is read twice
      continue;
    }
    try {
      models.push_back(TrainedModel::load(path.toStdString()));
    } catch (const std::exception& e) {
      *error = QString::fromUtf8(e.what());  // core's message names the file
      return false;
    }
  }
  // Each checkpoint must match the config its run will actually get: the setup as the form holds
  // it.
  QString specError;
  const std::vector<TrainingRunSpec> specs = runSpecsFromForm(spec, form, &specError);
  if (specs.size() != models.size()) {
    *error = tr("the loaded setup cannot run: %1")
                 .arg(specError.isEmpty() ? tr("a family is listed twice") : specError);
    return false;
  }
  // Runs follow the family list's order; the checkpoints come in spec.families' order.
  std::vector<std::unique_ptr<TrainedModel>> ordered(specs.size());
  for (size_t r = 0; r < specs.size(); ++r) {
    const std::string& family = specs[r].config.model.family;
    const size_t at = static_cast<size_t>(
        std::find(spec.families.begin(), spec.families.end(), family) - spec.families.begin());
    if (at >= models.size() || !models[at]) {
      *error = tr("no checkpoint for the %1 run").arg(QString::fromStdString(family));
      return false;
    }
    const QString& path = checkpoints[static_cast<qsizetype>(at)];
    const QString mismatch = trainConfigMismatch(specs[r].config, models[at]->config());
    if (!mismatch.isEmpty()) {
      *error = tr("checkpoint %1 was not trained with this setup's %2 run: %3")
                   .arg(QDir::toNativeSeparators(path), QString::fromStdString(family), mismatch);
      return false;
    }
    ordered[r] = std::move(models[at]);
  }
  const poslab::ExperimentSpec running = experimentFromForm(spec, form);
  if (!startRuns(specs, std::move(ordered), running, error)) return false;
  setup_ = spec;
  QStringList at;
  for (size_t i = 0; i < runs_.size(); ++i) {
    const long long step = runs_[i]->stepCount();
    states_[i].step = step;
    states_[i].finished = step >= specs[i].config.run.steps;
    at << tr("%1 at step %2").arg(QString::fromStdString(specs[i].config.model.family)).arg(step);
  }
  Q_EMIT stepChanged(stepCount());
  Q_EMIT runStateChanged();
  setStatus(tr("loaded trained models (%1): press Play to continue").arg(at.join(", ")));
  return true;
}

void TrainingController::preloadCheckpoints(const QStringList& paths,
                                            std::function<void(const QString&)> done) {
  loadTrainedModelsAsync(paths, this, [this, paths, done](const LoadedModels& loaded) {
    preloaded_.clear();
    if (loaded.error.isEmpty())
      for (qsizetype i = 0; i < paths.size(); ++i)
        preloaded_[paths[i]] = loaded.models[static_cast<size_t>(i)];
    done(loaded.error);
  });
}

bool TrainingController::startRuns(const std::vector<TrainingRunSpec>& specs,
                                   std::vector<std::unique_ptr<TrainedModel>> models,
                                   const poslab::ExperimentSpec& running, QString* error) {
  clearRuns();
  try {
    for (size_t i = 0; i < specs.size(); ++i) {
      const int index = static_cast<int>(i);
      auto run = i < models.size()
                     ? std::make_unique<TrainingRun>(index, specs[i], std::move(models[i]))
                     : std::make_unique<TrainingRun>(index, specs[i]);
      connectRun(run.get());
      runs_.push_back(std::move(run));
    }
  } catch (const std::exception& e) {
    clearRuns();
    *error = tr("cannot start training: %1").arg(QString::fromUtf8(e.what()));
    return false;
  }
  running_ = running;
  states_.assign(runs_.size(), RunState{});
  lastEval_.assign(runs_.size(), {});
  lastSnapshot_.assign(runs_.size(), Snapshot{});
  Q_EMIT runsStarted(specs);
  return true;
}

void TrainingController::connectRun(TrainingRun* run) {
  const int generation = generation_;
  // A step in flight when clearRuns() joined the old workers still emits its snapshot; it must
  // not land on the new runs (their step, curves and diverged state).
  connect(
      run, &TrainingRun::snapshot, this,
      [this, generation](int index, const poslab::Snapshot& s) {
        if (generation == generation_) onSnapshot(index, s);
      },
      Qt::QueuedConnection);
  connect(
      run, &TrainingRun::inspected, this,
      [this, generation](int index, const InspectionResult& r) {
        if (generation != generation_) return;  // an answer from runs since replaced
        Throttle& t = throttles_[r.kind];
        t.inFlight = false;
        Q_EMIT inspected(index, r);
        answered(t);
      },
      Qt::QueuedConnection);
  connect(
      run, &TrainingRun::checkpointSaved, this,
      [this, generation](int index, const QString& path, long long step, const QString& error) {
        if (generation != generation_) return;  // clearRuns already answered that save
        onCheckpointSaved(index, path, step, error);
      },
      Qt::QueuedConnection);
}

void TrainingController::clearRuns() {
  // Ask every worker to stop first, then join them: the steps in flight end together, so the
  // UI waits for the longest one rather than for their sum.
  for (auto& run : runs_) run->requestStop();
  runs_.clear();  // each destructor joins its worker
  ++generation_;  // answers still queued from those runs are dropped
  failPendingSave(tr("the runs were replaced before their checkpoints were saved"));
  throttles_.clear();
  states_.clear();
  lastEval_.clear();
  lastSnapshot_.clear();
  setProgress({});
  Q_EMIT runsCleared();
}

void TrainingController::throttled(Throttle& t, std::function<void()> send) {
  if (t.inFlight) {  // one at a time: the answer sends the newest waiting request
    t.pending = true;
    t.send = std::move(send);
    return;
  }
  t.inFlight = true;
  t.pending = false;
  t.send = nullptr;
  send();
}

void TrainingController::answered(Throttle& t) {
  if (!t.pending) return;
  std::function<void()> next = std::move(t.send);
  t.pending = false;
  throttled(t, std::move(next));
}

void TrainingController::inspect(int index, const InspectionRequest& request) {
  if (index < 0 || index >= runCount()) return;
  throttled(throttles_[request.kind], [this, index, request] {
    if (index >= runCount()) return;
    Q_EMIT inspectionSent(index, request.kind);
    run(index)->inspect(request);
  });
}

bool TrainingController::saveCheckpoints(const QStringList& paths, CheckpointsSaved done,
                                         QString* error) {
  if (runs_.empty()) {
    *error = tr("nothing has been trained yet: press Play or Step in the training tab first");
    return false;
  }
  if (paths.size() != static_cast<qsizetype>(runs_.size())) {
    *error = tr("%1 checkpoint paths for %2 runs").arg(paths.size()).arg(runs_.size());
    return false;
  }
  if (pendingSave_) {
    *error = tr("the checkpoints of an earlier save are still being written; try again shortly");
    return false;
  }
  auto pending = std::make_unique<PendingSave>();
  pending->generation = generation_;
  pending->done = std::move(done);
  pendingSave_ = std::move(pending);
  for (size_t i = 0; i < runs_.size(); ++i) {
    ++pendingSave_->remaining;
    if (!runs_[i]->saveCheckpoint(paths[static_cast<qsizetype>(i)])) {
      --pendingSave_->remaining;
      if (pendingSave_->error.isEmpty())
        pendingSave_->error = tr("cannot save checkpoint %1: the run has stopped")
                                  .arg(paths[static_cast<qsizetype>(i)]);
    }
  }
  setStatus(tr("saving %1 checkpoint(s)…").arg(runs_.size()));
  if (pendingSave_->remaining == 0) failPendingSave(pendingSave_->error);
  return true;
}

void TrainingController::onCheckpointSaved(int index, const QString& path, long long step,
                                           const QString& error) {
  if (!pendingSave_ || pendingSave_->generation != generation_) return;
  PendingSave& p = *pendingSave_;
  if (!error.isEmpty()) {
    if (p.error.isEmpty()) p.error = error;
  } else {
    SavedCheckpoint c;
    c.run = index;
    c.family = runFamily(index);
    c.path = path;
    c.step = step;
    p.saved.push_back(c);
  }
  if (--p.remaining > 0) return;
  std::sort(p.saved.begin(), p.saved.end(),
            [](const SavedCheckpoint& a, const SavedCheckpoint& b) { return a.run < b.run; });
  std::unique_ptr<PendingSave> finished = std::move(pendingSave_);
  setStatus(finished->error.isEmpty() ? tr("saved %1 checkpoint(s)").arg(finished->saved.size())
                                      : finished->error);
  if (finished->done) finished->done(finished->saved, finished->error);
}

void TrainingController::failPendingSave(const QString& error) {
  if (!pendingSave_) return;
  std::unique_ptr<PendingSave> failed = std::move(pendingSave_);
  if (failed->done) failed->done({}, error);
}

void TrainingController::play(const TrainingFormSettings& form) {
  if (!ensureRuns(form)) return;
  QStringList diverged, finished, failed;
  for (size_t i = 0; i < runs_.size(); ++i) {
    const QString family = QString::fromStdString(runFamily(static_cast<int>(i)));
    // A diverged run would fail the same step again (same weights, same batch); a finished one
    // would not step at all, and its worker sends no snapshot to say so; a run that could not
    // be built has nothing to step.
    if (!states_[i].failure.isEmpty())
      failed << QStringLiteral("%1 (%2)").arg(family, states_[i].failure);
    else if (states_[i].diverged)
      diverged << family;
    else if (states_[i].finished)
      finished << family;
    else
      runs_[i]->play();
  }
  QStringList messages;
  if (!failed.isEmpty())
    messages << tr("%1 cannot train: change the setup, or press Reset to build it again")
                    .arg(failed.join(", "));
  if (!diverged.isEmpty())
    messages
        << tr("%1 diverged and stays paused: press Reset to start again").arg(diverged.join(", "));
  if (!finished.isEmpty())
    messages << tr("%1 finished: press Reset to train again").arg(finished.join(", "));
  if (!messages.isEmpty()) setStatus(messages.join(QStringLiteral("; ")));
  playClock_.start();
  playStartStep_ = stepCount();
  Q_EMIT runStateChanged();
}

void TrainingController::pause() {
  for (auto& r : runs_) r->pause();
  setProgress({});
  Q_EMIT runStateChanged();
}

void TrainingController::stepOnce(const TrainingFormSettings& form) {
  if (!ensureRuns(form)) return;
  for (size_t i = 0; i < runs_.size(); ++i)
    if (!states_[i].diverged && states_[i].failure.isEmpty()) runs_[i]->stepOnce();
  Q_EMIT runStateChanged();  // maps and samples follow the step's snapshot
}

void TrainingController::reset() {
  for (auto& r : runs_) r->reset();
  for (auto& s : states_) s = RunState{};
  for (auto& e : lastEval_) e.clear();
  for (auto& s : lastSnapshot_) s = Snapshot{};
  setProgress({});
  Q_EMIT runsReset();
  Q_EMIT stepChanged(0);
  Q_EMIT runStateChanged();
}

void TrainingController::stop() {
  clearRuns();
  Q_EMIT stepChanged(0);
  Q_EMIT runStateChanged();
}

void TrainingController::onSnapshot(int index, const poslab::Snapshot& s) {
  if (index < 0 || index >= runCount()) return;  // a run since removed
  const size_t i = static_cast<size_t>(index);
  const QString family = QString::fromStdString(runFamily(index));
  bool inspect = false;  // the model the user looks at changed
  const bool wasFinished = states_[i].finished;
  if (s.event == SnapshotEvent::Evaluating) {  // where a long evaluation is: no new step
    setProgress(QStringLiteral("%1: %2, %3%")
                    .arg(family, QString::fromStdString(s.message))
                    .arg(qRound(100 * s.evaluationDone)));
    return;
  }
  if (s.event == SnapshotEvent::Reset) {
    states_[i] = RunState{};
    lastSnapshot_[i] = Snapshot{};
    inspect = true;
  } else if (s.event == SnapshotEvent::Failed) {
    // Built on the run's own thread (a corpus read, a model initialised): nothing to step.
    states_[i].failure = QString::fromStdString(s.message);
    setStatus(QStringLiteral("%1: %2").arg(family, states_[i].failure));
  } else if (s.event == SnapshotEvent::Diverged) {
    // The worker paused itself and left the weights as before the failed step.
    states_[i].finished = states_[i].diverged = true;
    setStatus(tr("%1 paused itself: %2").arg(family, QString::fromStdString(s.message)));
    inspect = true;
  } else {
    if (s.step > 0) {
      states_[i].step = s.step;
      lastSnapshot_[i] = s;
    }
    // The last step: the run will not step again.
    if (s.event == SnapshotEvent::Finished ||
        (s.step > 0 && s.step >= runs_[i]->spec().config.run.steps))
      states_[i].finished = true;
    if (!s.message.empty())
      setStatus(QStringLiteral("%1: %2").arg(family, QString::fromStdString(s.message)));
    // After an evaluation, the last step, or a step while paused (Step, or the one in flight at
    // Pause).
    inspect = !s.eval.empty() || states_[i].finished || (s.step > 0 && !runs_[i]->isPlaying());
  }
  if (!s.eval.empty()) lastEval_[i] = s.eval;
  updateStepProgress();
  Q_EMIT stepChanged(stepCount());
  Q_EMIT runStateChanged();
  // Not after divergence: the weights are the last good ones, but the user looks at the failure.
  const bool finishedNow = !wasFinished && states_[i].finished && !states_[i].diverged;
  Q_EMIT snapshotApplied(index, s, inspect, finishedNow);
}

QString TrainingController::runStateText() const {
  if (runs_.empty()) return tr("not started");
  QStringList each;
  for (size_t i = 0; i < runs_.size(); ++i) {
    const RunState& st = states_[i];
    if (!st.failure.isEmpty())
      each << tr("could not be built");
    else if (st.diverged)
      each << tr("diverged at step %1, paused").arg(st.step);
    else if (runs_[i]->isPlaying())
      each << tr("playing");
    else if (st.finished)
      each << tr("finished");
    else
      each << tr("paused");
  }
  if (each.count(each.front()) == each.size()) return each.front();
  QStringList parts;
  for (size_t i = 0; i < runs_.size(); ++i)
    parts << QStringLiteral("%1: %2").arg(QString::fromStdString(runFamily(static_cast<int>(i))),
                                          each[static_cast<int>(i)]);
  return parts.join(QStringLiteral(" · "));
}

}  // namespace poslab::ui
