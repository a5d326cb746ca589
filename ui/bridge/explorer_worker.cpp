#include "bridge/explorer_worker.h"

#include <QMetaObject>

#include "bridge/explorer_compute.h"

namespace poslab::ui {

ExplorerWorker::ExplorerWorker() {
  qRegisterMetaType<ExplorerResult>();
  moveToThread(&thread_);
  thread_.setObjectName("explorer-worker");
  thread_.start();
}

ExplorerWorker::~ExplorerWorker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.reset();
  }
  thread_.quit();
  thread_.wait();
}

void ExplorerWorker::post(const ExplorerRequest& request) {
  bool wasIdle = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    wasIdle = !pending_.has_value();
    pending_ = request;
  }
  // One queued call per batch of posts: processPending takes whatever is newest when it runs.
  if (wasIdle)
    QMetaObject::invokeMethod(
        this, [this] { processPending(); }, Qt::QueuedConnection);
}

void ExplorerWorker::processPending() {
  static thread_local const bool singleThreaded = [] {  // once, on the worker thread
    useOneIntraOpThread();
    return true;
  }();
  (void)singleThreaded;
  ExplorerRequest request;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!pending_) return;
    request = std::move(*pending_);
    pending_.reset();
  }
  Q_EMIT finished(computeExplorer(request));
}

}  // namespace poslab::ui
