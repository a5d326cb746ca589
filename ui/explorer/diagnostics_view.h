// Tab (e): PJ-bias diagnostics: the PJ-bias basis fitted to a target kernel, read per sector and
// jet order as mass share, functional energy (left axis) and leave-one-out MSE increase (right).
#pragma once

#include <QWidget>

#include <string>
#include <vector>

#include "bridge/explorer_types.h"

class QComboBox;
class QCPBars;
class QCustomPlot;
class QLabel;

namespace poslab::ui {

class DiagnosticsView : public QWidget {
  Q_OBJECT
 public:
  explicit DiagnosticsView(QWidget* parent = nullptr);

  void fillRequest(ExplorerRequest& request) const;
  void showResult(const ExplorerResult& result);

  // setSettings: a target not in targets() keeps the current one.
  DiagnosticsSettings settings() const;
  void setSettings(const DiagnosticsSettings& settings);
  static std::vector<std::string> targets();  // core's lag kernels (probeTargetNames)

  QCustomPlot* plot() const { return plot_; }
  struct Bars {
    QCPBars* massShare = nullptr;
    QCPBars* energy = nullptr;
    QCPBars* loo = nullptr;  // right axis
  };
  const Bars& bars() const { return bars_; }

 Q_SIGNALS:
  void settingsChanged();

 private:
  QComboBox* target_ = nullptr;
  QLabel* summary_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  Bars bars_;
};

}  // namespace poslab::ui
