// Attention of the trained model on one sample input (example 0 of the run's sample stream: at
// the train length, row 1 of the Samples tab): one layer and head at a time as a heatmap, on a log
// colour scale like the explorer's map. The maps come from the run's worker thread
// (inspection kind "attention", bridge/inspect_attention.h); this view only draws them and says
// which run, length and step.
#pragma once

#include <QStringList>
#include <QWidget>

#include <vector>

#include "bridge/inspect_attention.h"  // TrainingAttention: plain data

class QCheckBox;
class QComboBox;
class QCPColorMap;
class QCPColorScale;
class QCustomPlot;
class QLabel;
class QSpinBox;

namespace poslab::ui {

class ModelAttentionView : public QWidget {
  Q_OBJECT
 public:
  static constexpr long long kMaxSide = 256;  // maps are pooled to at most this side

  explicit ModelAttentionView(QWidget* parent = nullptr);

  void setRuns(const QStringList& families, const QStringList& toolTips = {});  // clears the map
  // Sample lengths to offer (train length first); keeps the chosen one when still offered.
  void setLengths(const std::vector<long long>& lengths);
  int run() const;           // index of the run shown, -1 without runs
  long long length() const;  // T of the sample input
  void showAttention(const TrainingAttention& attention);

  // The map shown: [row i][key j], size x size (empty before the first result).
  const std::vector<double>& shownMap() const { return shown_; }
  long long shownSize() const { return last_.sample.size; }
  long long shownStep() const { return last_.step; }
  QCustomPlot* plot() const { return plot_; }
  QString infoText() const;

 Q_SIGNALS:
  // The run or the length changed: new maps are needed (layer and head are redrawn here).
  void requestChanged();

 private:
  void render();

  QComboBox* run_ = nullptr;
  QComboBox* length_ = nullptr;
  QSpinBox* layer_ = nullptr;
  QSpinBox* head_ = nullptr;
  QCheckBox* logColor_ = nullptr;
  QLabel* info_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  QCPColorMap* map_ = nullptr;
  QCPColorScale* scale_ = nullptr;
  TrainingAttention last_;
  std::vector<double> shown_;
};

}  // namespace poslab::ui
