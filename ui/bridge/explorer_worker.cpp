#include "bridge/explorer_worker.h"

#include <QMetaObject>

#include <ATen/Parallel.h>
#include <dlfcn.h>

#include "bridge/explorer_compute.h"

namespace poslab::ui {

namespace {
// One intra-op thread for the explorer's computations. A team of two spin-waits between the many
// small ops of a map and starves the GUI thread on a 2-core machine (512 x 512 map: latency p95
// 180-720 ms with two threads, ~40 ms with one; docs/PERFORMANCE.md, GUI responsiveness).
// Not at::set_num_threads(1): it also sets the default that threads started later (training
// workers) take. OpenMP's own setter changes this thread only; torch's lazy per-thread init runs
// first (get_num_threads), or it would undo it at the first parallel op.
bool useOneIntraOpThread() {
  (void)at::get_num_threads();
  using SetThreads = void (*)(int);
  if (auto fn = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"))) fn(1);
  return true;
}
}  // namespace

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
  if (wasIdle) QMetaObject::invokeMethod(this, [this] { processPending(); }, Qt::QueuedConnection);
}

void ExplorerWorker::processPending() {
  static thread_local const bool singleThreaded = useOneIntraOpThread();
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
