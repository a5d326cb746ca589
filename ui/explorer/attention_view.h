// Tab (b): the positional attention map (q = k = ones, so only the position signal) of one head
// as a heatmap, and whether the logits are Toeplitz (depend on the lag only).
#pragma once

#include <QWidget>

#include "bridge/explorer_types.h"

class QCheckBox;
class QComboBox;
class QCPColorMap;
class QCPColorScale;
class QCustomPlot;
class QLabel;
class QSpinBox;

namespace poslab::ui {

class AttentionView : public QWidget {
  Q_OBJECT
 public:
  explicit AttentionView(QWidget* parent = nullptr);

  void fillRequest(ExplorerRequest& request) const;
  void showResult(const ExplorerResult& result);

  QCustomPlot* plot() const { return plot_; }
  QCPColorMap* colorMap() const { return map_; }
  QString toeplitzText() const;

 Q_SIGNALS:
  void settingsChanged();

 private:
  void render();  // draws last_ with the current colour scale

  QComboBox* T_ = nullptr;
  QCheckBox* logColor_ = nullptr;
  AttentionResult last_;
  QSpinBox* head_ = nullptr;
  QLabel* toeplitz_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  QCPColorMap* map_ = nullptr;
  QCPColorScale* scale_ = nullptr;
};

}  // namespace poslab::ui
