// What a trained kernel-lm / sector-teacher model learned, lag by lag: flip the bit d tokens
// before the QUERY and watch the answer's margin logit(1) - logit(0) (core's measureLagResponse,
// on the run's worker thread: inspection kind "lag-response", bridge/inspect_lag_response.h). The
// learned response (left axis, logits) is drawn next to the task's kernel K(d) (right axis, its own
// scale), with a dashed line at the training length, and summarised as `poslab-cli response` does:
// cosines over all lags, the trained lags and the lags beyond, and the accuracy a linear readout
// with this kernel would reach. The probe costs seconds at long lengths, so it runs on demand
// (Measure) and when a run finishes, never on every step.
#pragma once

#include <QWidget>

#include <vector>

#include "bridge/inspect_lag_response.h"  // TrainingLagResponse: plain data
#include "train/train_config.h"           // plain data, no torch

class QComboBox;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QCustomPlot;
class QLabel;
class QPushButton;

namespace poslab::ui {

class LagResponseView : public QWidget {
  Q_OBJECT
 public:
  static constexpr long long kSamples = 8;  // probe sequences averaged over (the CLI uses 16)

  explicit LagResponseView(QWidget* parent = nullptr);

  // One entry per run (its family names it); clears the plot. Keeps the chosen run when it is
  // still there.
  void setRuns(const std::vector<poslab::TrainConfig>& configs);
  int run() const;           // index of the run shown, -1 without runs
  long long length() const;  // the probe length T chosen, -1 when none is offered
  // Whether the chosen run's task has a learned kernel to measure (kernel-lm, sector-teacher).
  bool measurable() const;
  static bool hasLagResponse(const std::string& taskId);
  // The model changed under the shown response (Reset): back to "press Measure".
  void clearResponse() { onRunChanged(); }
  // A request went to the worker: says so until the answer comes.
  void setMeasuring();
  void showResponse(const TrainingLagResponse& response);

  const TrainingLagResponse& shown() const { return last_; }
  QCustomPlot* plot() const { return plot_; }
  QPushButton* measureButton() const { return measure_; }
  QString infoText() const;

 Q_SIGNALS:
  void measureRequested();  // Measure pressed: the panel asks the chosen run's worker

 private:
  void onRunChanged();  // fills the length choices, enables Measure, clears the plot
  void clearPlot();

  std::vector<poslab::TrainConfig> configs_;
  QComboBox* run_ = nullptr;
  QComboBox* length_ = nullptr;
  QPushButton* measure_ = nullptr;
  QLabel* info_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  QCPGraph* response_ = nullptr;
  QCPGraph* target_ = nullptr;
  QCPItemStraightLine* trainLine_ = nullptr;
  QCPItemText* trainLabel_ = nullptr;
  TrainingLagResponse last_;
};

}  // namespace poslab::ui
