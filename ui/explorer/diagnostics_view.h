// Tab (e): PJ diagnostics, computed by core: for a kernel-LM target the PJ-bias basis fitted by
// least squares, read per sector and jet order; for a sector target the PJ adaptive recovery
// (a softmax-gated PJ kernel trained by Adam, MATH 4.2.5), read per jet order with FJ and LC
// summed. Bars: mass share, functional energy (left axis), leave-one-out MSE increase (right).
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

  // The x axis title: the components in the kernel view's notation (FJᵣ, LCᵣ).
  static QString sectorAxisLabel(bool adaptive);

  void fillRequest(ExplorerRequest& request) const;
  void showResult(const ExplorerResult& result);

  // setSettings: a target not in targets() keeps the current one.
  DiagnosticsSettings settings() const;
  void setSettings(const DiagnosticsSettings& settings);
  static std::vector<std::string> targets();  // diagnosticsTargetNames(): kernel-LM, sector

  QCustomPlot* plot() const { return plot_; }
  struct Bars {
    QCPBars* massShare = nullptr;
    QCPBars* energy = nullptr;
    QCPBars* loo = nullptr;  // right axis
  };
  const Bars& bars() const { return bars_; }
  QString summaryText() const;  // the line above the plot (rich text): the fit and its numbers

 Q_SIGNALS:
  void settingsChanged();

 private:
  QComboBox* target_ = nullptr;
  QLabel* summary_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  Bars bars_;
};

}  // namespace poslab::ui
