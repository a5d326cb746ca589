// Bridge TU: includes the trainer (and with it ATen).
#include "bridge/trained_model.h"

#include <QCoreApplication>
#include <QObject>
#include <QPointer>
#include <QThread>

#include <exception>

#include <c10/util/Exception.h>
#include <nlohmann/json.hpp>

#include "tasks/task_options.h"
#include "train/trainer.h"

namespace poslab::ui {

TrainedModel::~TrainedModel() = default;

std::unique_ptr<TrainedModel> TrainedModel::load(const std::string& path) {
  std::unique_ptr<TrainedModel> m(new TrainedModel);
  m->path_ = path;
  try {
    m->trainer_ = Trainer::fromCheckpoint(path);
  } catch (const poslab::Error& e) {
    if (std::string(e.what()).find(path) != std::string::npos) throw;  // names the file
    throw poslab::Error("checkpoint " + path + ": " + e.what());       // e.g. its config is refused
  } catch (const c10::Error& e) {
    // A pickle that parsed but lacks a field, a tensor of the wrong shape, ...
    throw poslab::Error("checkpoint " + path + " is damaged or incomplete (" +
                        e.what_without_backtrace() + ")");
  } catch (const std::exception& e) {
    throw poslab::Error("checkpoint " + path + " cannot be loaded: " + e.what());
  }
  m->step_ = m->trainer_->stepCount();
  m->config_ = m->trainer_->config();
  return m;
}

std::unique_ptr<poslab::Trainer> TrainedModel::release() {
  return std::move(trainer_);
}

std::unique_ptr<TrainedModel> TrainedModel::takeFrom(TrainedModel& from) {
  std::unique_ptr<TrainedModel> m(new TrainedModel);
  m->path_ = from.path_;
  m->step_ = from.step_;
  m->config_ = from.config_;
  m->trainer_ = from.release();
  return m;
}

void loadTrainedModelsAsync(const QStringList& paths, QObject* context,
                            std::function<void(const LoadedModels&)> done) {
  QPointer<QObject> alive(context);
  QThread* thread = QThread::create([paths, alive, done] {
    LoadedModels result;
    for (const QString& path : paths) {
      try {
        result.models.push_back(TrainedModel::load(path.toStdString()));
      } catch (const std::exception& e) {
        result.models.clear();
        result.error = QString::fromUtf8(e.what());  // names the file
        break;
      }
    }
    // Back on the UI thread, where `alive` is checked without a race.
    QMetaObject::invokeMethod(
        QCoreApplication::instance(),
        [alive, done, result] {
          if (alive) done(result);
        },
        Qt::QueuedConnection);
  });
  thread->setObjectName("checkpoint-loader");
  QObject::connect(thread, &QThread::finished, thread, &QObject::deleteLater);
  thread->start();
}

namespace {

// What Trainer fills in itself, filled in the same way, so a setup compares equal to the config
// its trainer ended up with. A task option given at the value the task uses when it is absent is
// the same setup as the option left out (the training panel leaves such options out; a CLI or
// hand-written config may spell them).
nlohmann::json completed(poslab::TrainConfig c) {
  c.model.vocab = 0;  // the task decides the vocabulary
  c.task.headDim = c.model.heads > 0 ? c.model.headDim() : c.task.headDim;
  if (c.run.evalLengths.empty()) c.run.evalLengths = {c.task.trainLength};
  for (const poslab::TaskOptionSpec& spec : poslab::taskOptionSpecs(c.task)) {
    const auto given = c.task.options.find(spec.name);
    if (given != c.task.options.end() && given->second == spec.defaultValue)
      c.task.options.erase(given);
  }
  return nlohmann::json(c);
}

std::string shortDump(const nlohmann::json* v) {
  if (!v) return "absent";
  std::string s = v->dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

}  // namespace

QString trainConfigMismatch(const poslab::TrainConfig& expected,
                            const poslab::TrainConfig& checkpoint) {
  const nlohmann::json want = completed(expected), have = completed(checkpoint);
  const nlohmann::json patch = nlohmann::json::diff(want, have);
  if (patch.empty()) return {};
  // The first difference, reported at the level of a config field ("run.eval_lengths", not
  // "/run/eval_lengths/1"): section and key.
  const std::string where = patch.front().at("path").get<std::string>();
  std::vector<std::string> parts;
  for (size_t start = 1; start <= where.size();) {
    const size_t slash = where.find('/', start);
    parts.push_back(
        where.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (parts.size() > 2) parts.resize(2);
  std::string field, pointer;
  for (const auto& p : parts) {
    field += (field.empty() ? "" : ".") + p;
    pointer += "/" + p;
  }
  const nlohmann::json::json_pointer ptr(pointer);
  const nlohmann::json* inSetup = want.contains(ptr) ? &want.at(ptr) : nullptr;
  const nlohmann::json* inCheckpoint = have.contains(ptr) ? &have.at(ptr) : nullptr;
  return QObject::tr("%1 is %2 in the checkpoint but %3 in the setup")
      .arg(QString::fromStdString(field), QString::fromStdString(shortDump(inCheckpoint)),
           QString::fromStdString(shortDump(inSetup)));
}

}  // namespace poslab::ui
