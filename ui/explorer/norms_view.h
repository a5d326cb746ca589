// Tab (c): feature norms of the factorized form vs position (log10 of ||q'||/||q|| and
// ||k'||/||k||) and the logit scale, on a log position axis, with a marker where float32 fails;
// beside them the same vector under core's light-cone chart transform (MATH 4.3.1), bounded.
#pragma once

#include <QWidget>

#include <vector>

#include "bridge/explorer_types.h"

class QComboBox;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QCustomPlot;
class QLabel;

namespace poslab::ui {

class NormsView : public QWidget {
  Q_OBJECT
 public:
  explicit NormsView(QWidget* parent = nullptr);

  void fillRequest(ExplorerRequest& request) const;
  void showResult(const ExplorerResult& result);

  // setSettings: a largest position not in maxPositions() keeps the current one.
  NormsSettings settings() const;
  void setSettings(const NormsSettings& settings);
  static std::vector<long long> maxPositions();  // offered: 256, 512, ..., 32768

  QCustomPlot* plot() const { return plot_; }
  struct Graphs {
    QCPGraph* query = nullptr;       // log10 ||q'||/||q||, left axis
    QCPGraph* key = nullptr;         // log10 ||k'||/||k||, left axis
    QCPGraph* logitScale = nullptr;  // max_j |l(p, j)|, right log axis
    QCPGraph* chartQuery = nullptr;  // log10 ratios under the light-cone chart, left axis
    QCPGraph* chartKey = nullptr;
  };
  const Graphs& graphs() const { return graphs_; }
  QString precisionText() const;

 Q_SIGNALS:
  void settingsChanged();

 private:
  QComboBox* maxPos_ = nullptr;
  QLabel* precision_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  Graphs graphs_;
  QCPItemStraightLine* float32Line_ = nullptr;
  QCPItemText* float32Label_ = nullptr;
};

}  // namespace poslab::ui
