// Tab (d): the kernel probe (core's runKernelProbe, MATH 4.1): a target lag function, each
// family's ridge fit on the window d < L drawn out to 8L (a dashed line marks L), and the table of
// MSE in the window and out to 2L, 4L, 8L (best at 8L first), with the current family's changed
// parameters applied.
#pragma once

#include <QString>
#include <QWidget>

#include <map>
#include <string>
#include <vector>

#include "bridge/explorer_types.h"

class QComboBox;
class QCPGraph;
class QCPItemStraightLine;
class QCustomPlot;
class QTableWidget;

namespace poslab::ui {

class ProbeView : public QWidget {
  Q_OBJECT
 public:
  explicit ProbeView(QWidget* parent = nullptr);

  void fillRequest(ExplorerRequest& request) const;
  void showResult(const ExplorerResult& result);

  // setSettings: a target not in targets() keeps the current one.
  ProbeSettingsUi settings() const;
  void setSettings(const ProbeSettingsUi& settings);
  static std::vector<std::string> targets();  // core's probeTargetNames()

  QCustomPlot* plot() const { return plot_; }
  QTableWidget* table() const { return table_; }
  struct Graphs {
    QCPGraph* target = nullptr;
    std::map<QString, QCPGraph*> fitted;  // by family id
  };
  const Graphs& graphs() const { return graphs_; }

 Q_SIGNALS:
  void settingsChanged();

 private:
  QComboBox* target_ = nullptr;
  QComboBox* set_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  QTableWidget* table_ = nullptr;
  QCPItemStraightLine* windowLine_ = nullptr;  // at d = L
  Graphs graphs_;
};

}  // namespace poslab::ui
