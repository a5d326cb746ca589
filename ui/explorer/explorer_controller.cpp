#include "explorer/explorer_controller.h"

#include <QLabel>

#include "explorer/attention_view.h"
#include "explorer/diagnostics_view.h"
#include "explorer/formula_panel.h"
#include "explorer/kernel_view.h"
#include "explorer/norms_view.h"
#include "explorer/parameter_panel.h"
#include "explorer/probe_view.h"

namespace poslab::ui {

namespace {
QString viewTitle(ExplorerView v) {
  switch (v) {
    case ExplorerView::Kernel:
      return QObject::tr("kernel");
    case ExplorerView::Attention:
      return QObject::tr("attention map");
    case ExplorerView::Norms:
      return QObject::tr("feature norms");
    case ExplorerView::Probe:
      return QObject::tr("kernel probe");
    case ExplorerView::Diagnostics:
      return QObject::tr("PJ diagnostics");
  }
  return {};
}
}  // namespace

ExplorerController::ExplorerController(const ExplorerWidgets& widgets, QObject* parent)
    : QObject(parent), w_(widgets) {
  timer_.setSingleShot(true);
  timer_.setInterval(kCoalesceMs);
  connect(&timer_, &QTimer::timeout, this, &ExplorerController::dispatch);
  connect(&worker_, &ExplorerWorker::finished, this, &ExplorerController::onResult,
          Qt::QueuedConnection);
  connect(w_.parameters, &ParameterPanel::familyChanged, this, [this] {
    if (const FamilyDescription* f = findFamily(w_.parameters->familyId()))
      w_.formula->showFamily(*f);
    markAllStale();
  });
  connect(w_.parameters, &ParameterPanel::valuesChanged, this, &ExplorerController::markAllStale);
  connect(w_.kernel, &KernelView::settingsChanged, this,
          [this] { markStale(ExplorerView::Kernel); });
  connect(w_.attention, &AttentionView::settingsChanged, this,
          [this] { markStale(ExplorerView::Attention); });
  connect(w_.norms, &NormsView::settingsChanged, this, [this] { markStale(ExplorerView::Norms); });
  connect(w_.probe, &ProbeView::settingsChanged, this, [this] { markStale(ExplorerView::Probe); });
  connect(w_.diagnostics, &DiagnosticsView::settingsChanged, this,
          [this] { markStale(ExplorerView::Diagnostics); });
  if (const FamilyDescription* f = findFamily(w_.parameters->familyId()))
    w_.formula->showFamily(*f);
  markAllStale();
}

void ExplorerController::setCurrentView(std::optional<ExplorerView> view) {
  current_ = view;
  schedule();
}

bool ExplorerController::busy() const {
  return timer_.isActive() || pendingId_ != 0;
}

void ExplorerController::markAllStale() {
  stale_ = {ExplorerView::Kernel, ExplorerView::Attention, ExplorerView::Norms, ExplorerView::Probe,
            ExplorerView::Diagnostics};
  if (pendingId_ != 0) staleAgain_ = stale_;
  schedule();
}

void ExplorerController::markStale(ExplorerView view) {
  stale_.insert(view);
  if (pendingId_ != 0) staleAgain_.insert(view);
  schedule();
}

void ExplorerController::schedule() {
  if (!current_ || !stale_.count(*current_)) return;
  if (pendingId_ != 0 || timer_.isActive()) return;  // the result or the timer sends the newest
  const qint64 since = sinceDispatch_.isValid() ? sinceDispatch_.elapsed() : kCoalesceMs;
  if (since >= kCoalesceMs)
    dispatch();
  else
    timer_.start(static_cast<int>(kCoalesceMs - since));
}

void ExplorerController::dispatch() {
  if (!current_ || !stale_.count(*current_)) return;
  sinceDispatch_.start();
  staleAgain_.clear();
  ExplorerRequest r;
  r.id = nextId_++;
  r.view = *current_;
  r.family = w_.parameters->familyId();
  r.params = w_.parameters->values();
  r.overrides = w_.parameters->overrides();
  w_.kernel->fillRequest(r);
  w_.attention->fillRequest(r);
  w_.norms->fillRequest(r);
  w_.probe->fillRequest(r);
  w_.diagnostics->fillRequest(r);
  pendingId_ = r.id;
  worker_.post(r);
}

void ExplorerController::onResult(const ExplorerResult& result) {
  if (result.id != pendingId_) return;  // a newer request overtook this one
  pendingId_ = 0;
  if (!staleAgain_.count(result.view)) stale_.erase(result.view);
  const bool ok = result.error.empty();
  if (ok) {
    switch (result.view) {
      case ExplorerView::Kernel:
        w_.kernel->showResult(result);
        break;
      case ExplorerView::Attention:
        w_.attention->showResult(result);
        break;
      case ExplorerView::Norms:
        w_.norms->showResult(result);
        break;
      case ExplorerView::Probe:
        w_.probe->showResult(result);
        break;
      case ExplorerView::Diagnostics:
        w_.diagnostics->showResult(result);
        break;
    }
    lastError_.clear();
    w_.error->clear();
    w_.error->setVisible(false);
  } else {
    // The previous plots stay: they show the last valid parameters.
    lastError_ = tr("%1: %2").arg(viewTitle(result.view), QString::fromStdString(result.error));
    w_.error->setText(lastError_);
    w_.error->setVisible(true);
  }
  Q_EMIT settled(result.view, ok);
  // The user may have moved on while this computed.
  schedule();
}

}  // namespace poslab::ui
