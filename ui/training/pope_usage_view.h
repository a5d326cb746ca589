// The training panel's "Frequency usage" tab for PoPE and RoPE runs: one bar per frequency c of the
// chosen layer (and head, or the heads' mean), each bar the share of the score's mean amplitude
// mu_q mu_k that frequency carries on sequences of the run's task (core's popeFrequencyUsage,
// MATH 4.6, on the run's worker thread: inspection kind "pope-usage", bridge/inspect_pope_usage.h),
// with a dashed line at the even share 1/F and the layer's effective number of frequencies (F: D
// for PoPE, D/2 for RoPE). The PoPE paper's frequency-usage analysis: does the model use its high
// frequencies too? Measured on demand (Measure), when a run finishes and when trained models are
// loaded; switching layer or head redraws the last answer.
#pragma once

#include <QWidget>

#include <string>
#include <utility>
#include <vector>

#include "bridge/inspect_pope_usage.h"  // TrainingPopeUsage: plain data
#include "train/train_config.h"         // plain data, no torch

class QComboBox;
class QCPBars;
class QCPItemStraightLine;
class QCustomPlot;
class QLabel;
class QPushButton;

namespace poslab::ui {

class PopeUsageView : public QWidget {
  Q_OBJECT
 public:
  static constexpr long long kSequences = 16;  // sequences averaged over (as the CLI's default)

  explicit PopeUsageView(QWidget* parent = nullptr);

  // One entry per run (its family names it); clears the plot. Keeps the chosen run when it is
  // still there and measurable; otherwise shows the first PoPE run, else the first RoPE run.
  void setRuns(const std::vector<poslab::TrainConfig>& configs);
  int run() const;  // index of the run shown, -1 without runs
  // The sequence length asked for: the chosen run's training length (-1 without a run).
  long long length() const;
  // Whether the chosen run is a PoPE or RoPE run (the families with a usage to measure).
  bool measurable() const;
  static bool hasPopeUsage(const std::string& family);
  // The plot's x-axis title for `family`'s frequency schedule.
  static QString frequencyAxisTitle(const std::string& family);
  // The model changed under the shown usage (Reset): back to "press Measure".
  void clearUsage() { onRunChanged(); }
  void setMeasuring();  // a request went to the worker: says so until the answer comes
  void showUsage(const TrainingPopeUsage& usage);

  const TrainingPopeUsage& shown() const { return last_; }
  QCustomPlot* plot() const { return plot_; }
  QPushButton* measureButton() const { return measure_; }
  QComboBox* layerBox() const { return layer_; }
  QComboBox* headBox() const { return head_; }
  QString infoText() const;
  // The bars drawn now: (c, share) per frequency.
  std::vector<std::pair<double, double>> bars() const;

 Q_SIGNALS:
  void measureRequested();  // Measure pressed: the panel asks the chosen run's worker

 private:
  void onRunChanged();  // enables Measure, clears the plot
  void clearPlot();
  void draw();  // the last answer at the chosen layer and head

  std::vector<poslab::TrainConfig> configs_;
  QComboBox* run_ = nullptr;
  QComboBox* layer_ = nullptr;
  QComboBox* head_ = nullptr;
  QPushButton* measure_ = nullptr;
  QLabel* info_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  QCPBars* bars_ = nullptr;
  QCPItemStraightLine* even_ = nullptr;  // the even share 1/D
  TrainingPopeUsage last_;
};

}  // namespace poslab::ui
