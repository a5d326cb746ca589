// Wires the explorer: parameter and view-setting changes mark views stale; the visible view's
// request goes to the worker at once when it is idle and the last request left 30 ms ago or more
// (an isolated change shows without delay), else when the result lands or the 30 ms are up, with
// the newest values (a drag computes at most once per 30 ms and never queues). The result goes
// to the view, or its error to the status label with the plots untouched.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <optional>
#include <set>

#include "bridge/explorer_types.h"
#include "bridge/explorer_worker.h"

class QLabel;

namespace poslab::ui {

class ParameterPanel;
class FormulaPanel;
class KernelView;
class AttentionView;
class NormsView;
class ProbeView;
class DiagnosticsView;

struct ExplorerWidgets {
  ParameterPanel* parameters = nullptr;
  FormulaPanel* formula = nullptr;
  KernelView* kernel = nullptr;
  AttentionView* attention = nullptr;
  NormsView* norms = nullptr;
  ProbeView* probe = nullptr;
  DiagnosticsView* diagnostics = nullptr;
  QLabel* error = nullptr;  // empty when the last computation succeeded
};

class ExplorerController : public QObject {
  Q_OBJECT
 public:
  ExplorerController(const ExplorerWidgets& widgets, QObject* parent = nullptr);

  // The view on screen (nullopt: a non-explorer tab); only it is computed.
  void setCurrentView(std::optional<ExplorerView> view);
  // True while a request is scheduled or computing.
  bool busy() const;
  // True when the view shows (or has reported an error for) the current parameters.
  bool isUpToDate(ExplorerView view) const { return !stale_.count(view); }
  QString lastError() const { return lastError_; }

 Q_SIGNALS:
  // A view's newest request finished (ok: its plots were updated; else the error is shown).
  void settled(poslab::ui::ExplorerView view, bool ok);

 private:
  void markAllStale();
  void markStale(ExplorerView view);
  void dispatch();
  void schedule();  // dispatch now, or arm the timer / wait for the result in flight
  void onResult(const ExplorerResult& result);

  // Parameter drags produce bursts: at most one request per 30 ms.
  static constexpr int kCoalesceMs = 30;

  ExplorerWidgets w_;
  ExplorerWorker worker_;
  QTimer timer_;
  QElapsedTimer sinceDispatch_;  // since the last request went to the worker
  std::optional<ExplorerView> current_;
  std::set<ExplorerView> stale_;
  // Views marked stale while a request was in flight: its result shows, but is already old.
  std::set<ExplorerView> staleAgain_;
  long long nextId_ = 1;
  long long pendingId_ = 0;  // 0: nothing in flight
  QString lastError_;
};

}  // namespace poslab::ui
