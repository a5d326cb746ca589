// The explorer's compute thread (Qt's mandelbrot pattern): the window posts value-type requests,
// the worker keeps only the newest one, computes it on its own thread and sends the result back
// by a queued signal. Requests that a newer one overtook are never computed.
#pragma once

#include <QObject>
#include <QThread>

#include <mutex>
#include <optional>

#include "bridge/explorer_types.h"

namespace poslab::ui {

class ExplorerWorker : public QObject {
  Q_OBJECT
 public:
  ExplorerWorker();
  ~ExplorerWorker() override;  // stops and joins the thread

  // Thread-safe; replaces any request not yet started.
  void post(const ExplorerRequest& request);

 Q_SIGNALS:
  // Emitted on the worker thread; connect with the default (queued) connection.
  void finished(const poslab::ui::ExplorerResult& result);

 private:
  void processPending();  // runs on thread_

  QThread thread_;
  std::mutex mutex_;
  std::optional<ExplorerRequest> pending_;  // guarded by mutex_
};

}  // namespace poslab::ui
