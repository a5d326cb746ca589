// Tab (a): the family's lag basis functions, one graph each, and its kernel K(d) in a thick pen,
// over a chosen number of lags on a linear or log lag axis. An "overlay" menu adds up to
// kMaxKernelOverlays other families whose K(d) is drawn over it, dashed, each in its own colour.
#pragma once

#include <QString>
#include <QWidget>

#include <map>
#include <string>
#include <vector>

#include "bridge/explorer_types.h"

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QToolButton;
class QCPGraph;
class QMenu;
class QCustomPlot;

namespace poslab::ui {

struct FamilyDescription;

class KernelView : public QWidget {
  Q_OBJECT
 public:
  explicit KernelView(QWidget* parent = nullptr);

  void fillRequest(ExplorerRequest& request) const;
  void showResult(const ExplorerResult& result);

  // The view's settings (lag count, log lag axis, overlay families) as plain values. setSettings
  // shows them: a lag count not in lagCounts() keeps the current one; the overlay as setOverlay.
  KernelSettings settings() const;
  void setSettings(const KernelSettings& settings);
  static std::vector<long long> lagCounts();  // offered: 16, 32, ..., 32768

  QCustomPlot* plot() const { return plot_; }
  // The graph of a basis function by its core name ("exp*cos"), or the kernel; null if absent.
  QCPGraph* basisGraph(const QString& name) const;
  QCPGraph* kernelGraph() const { return graphs_.kernel; }
  // The dashed K(d) of an overlay family ("rope"); null if it is not drawn.
  QCPGraph* overlayGraph(const QString& family) const;

  // The overlay families, in the order they were chosen.
  std::vector<std::string> overlay() const { return overlay_; }
  // Replaces the overlay choice (unknown ids and any beyond kMaxKernelOverlays are dropped);
  // emits settingsChanged when it changed.
  void setOverlay(const std::vector<std::string>& families);
  // Why an overlay is not drawn or is partly at its defaults; empty when nothing to say.
  QString overlayStatus() const;

 Q_SIGNALS:
  void settingsChanged();

 private:
  struct Graphs {
    QCPGraph* kernel = nullptr;             // K(d), thick
    std::map<QString, QCPGraph*> basis;     // by basis name
    std::map<QString, QCPGraph*> overlays;  // by family id
  };

  void syncOverlayMenu();
  // The overlay menu's entry of `f`, inserted before `before` (null: at the end); a family loaded
  // again keeps its entry with the new title.
  void addOverlayAction(QMenu* menu, const FamilyDescription& f, QAction* before);

  QComboBox* lagCount_ = nullptr;
  QCheckBox* logLag_ = nullptr;
  QCheckBox* basisAxis_ = nullptr;  // KernelSettings::basisOwnAxis
  QToolButton* overlayButton_ = nullptr;
  std::map<std::string, QAction*> overlayActions_;  // by family id
  std::vector<std::string> overlay_;
  QLabel* status_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  Graphs graphs_;
};

}  // namespace poslab::ui
