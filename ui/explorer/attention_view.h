// Tab (b): the positional attention map (q = k = ones, so only the position signal) of one head
// as a heatmap, and whether the logits are Toeplitz (depend on the lag only).
#pragma once

#include <QWidget>

#include <vector>

#include "bridge/explorer_types.h"

class QCheckBox;
class QComboBox;
class QCPColorMap;
class QCPColorScale;
class QCustomPlot;
class QLabel;
class QSpinBox;

namespace poslab::ui {

// The attention view's settings: the map's request and its colour scale (drawing only).
struct AttentionViewSettings {
  AttentionSettings map;
  bool logColor = true;
};

class AttentionView : public QWidget {
  Q_OBJECT
 public:
  explicit AttentionView(QWidget* parent = nullptr);

  void fillRequest(ExplorerRequest& request) const;
  void showResult(const ExplorerResult& result);

  // setSettings shows them: a T not in lengths() keeps the current one; the head range widens to
  // the head (the next result narrows it to the family's heads).
  AttentionViewSettings settings() const;
  void setSettings(const AttentionViewSettings& settings);
  static std::vector<long long> lengths();  // the T offered: 16, 32, ..., 1024

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
