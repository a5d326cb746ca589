// Tab (d): the kernel probe: a target lag function, each family's least-squares fit with its own
// basis, and the MSE table (best first), with the current family's changed parameters applied.
#pragma once

#include <QString>
#include <QWidget>

#include <map>
#include <string>
#include <vector>

#include "bridge/explorer_types.h"

class QComboBox;
class QCPGraph;
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
  static std::vector<std::string> targets();  // core's lag kernels (probeTargetNames)

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
  Graphs graphs_;
};

}  // namespace poslab::ui
