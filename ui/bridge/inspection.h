// One way to ask a trained model. Every question a live view puts to a run (attention maps,
// sample predictions, the lag response, PoPE frequency usage, ...) is an InspectionRequest: a
// registered kind and its arguments. TrainingRun::inspect queues it on the run's worker between
// steps, where the kind's answer runs core's free inspection functions (core/train/inspection.h)
// on the model; the answer comes back as one InspectionResult through one signal
// (TrainingRun::inspected, relayed by TrainingController::inspected with one throttle per kind).
//
// A kind is its own file (inspect_attention.h/.cpp, ...: its arguments, its result type and how
// it is computed) plus one line in builtInInspectionKinds (inspection.cpp), or one
// registerInspectionKind call; the view that shows it reads the result's value. Torch-free.
#pragma once

#include <QMetaType>
#include <QString>
#include <QVariant>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "train/inspection.h"  // InspectedModel: plain references, no torch

namespace poslab::ui {

struct InspectionRequest {
  std::string kind;  // a registered kind's id: "attention", "samples", "lag-response", ...
  QVariant args;     // the kind's own arguments (AttentionArgs, ...)
};

struct InspectionResult {
  std::string kind;  // the request's kind
  QVariant value;    // the kind's own result (TrainingAttention, ...), with its step or error
};

// Polled by a long answer (the lag response): false once the run is stopping.
using KeepGoing = std::function<bool()>;

struct InspectionKind {
  std::string id;
  // Runs on the worker thread between steps: the answer to `args` on the model that has taken
  // `step` steps. May throw (Error, std::exception): `failed` then makes the result.
  std::function<QVariant(const poslab::InspectedModel& model, long long step, const QVariant& args,
                         const KeepGoing& keepGoing)>
      answer;
  std::function<QVariant(const std::string& error)> failed;  // the result saying why not
};

// Registers a kind (replacing one with the same id). The built-in kinds are registered before
// any lookup. Thread-safe.
void registerInspectionKind(InspectionKind kind);
// A copy of the registered kind, or one with an empty id when none has that id.
InspectionKind inspectionKind(const std::string& id);
std::vector<std::string> inspectionKindIds();

namespace detail {
inline void setInspectionError(std::string& field, const std::string& error) {
  field = error;
}
inline void setInspectionError(QString& field, const std::string& error) {
  field = QString::fromStdString(error);
}
}  // namespace detail

// A kind from a function that fills its Result from its Args: Result has `long long step` and an
// `error` (std::string or QString); both types are Q_DECLARE_METATYPE'd. An args QVariant of
// another type is answered with an error.
template <class Args, class Result>
InspectionKind makeInspectionKind(
    std::string id,
    std::function<void(const poslab::InspectedModel&, const Args&, Result&, const KeepGoing&)>
        fill) {
  InspectionKind kind;
  kind.id = id;
  kind.answer = [id, fill](const poslab::InspectedModel& model, long long step,
                           const QVariant& args, const KeepGoing& keepGoing) {
    Result r;
    r.step = step;
    if (args.metaType() != QMetaType::fromType<Args>())
      detail::setInspectionError(r.error, "inspection '" + id + "' got arguments of another kind");
    else
      fill(model, args.value<Args>(), r, keepGoing);
    return QVariant::fromValue(r);
  };
  kind.failed = [](const std::string& error) {
    Result r;
    detail::setInspectionError(r.error, error);
    return QVariant::fromValue(r);
  };
  return kind;
}

template <class Args>
InspectionRequest inspectionRequest(std::string kind, const Args& args) {
  return {std::move(kind), QVariant::fromValue(args)};
}

}  // namespace poslab::ui

Q_DECLARE_METATYPE(poslab::ui::InspectionRequest)
Q_DECLARE_METATYPE(poslab::ui::InspectionResult)
