// The training panel's "Key distance" tab: for kv-retrieval runs, the latest evaluation's
// accuracy against the key distance d, how far back from the final key the queried pair sits
// (MATH 3.3). Core measures it at each evaluation length T, at the reference's distance points
// 64, 128, ... below T - 2 (EvalResult::accuracyByDistance, the CLI's acc@d=... table); the view
// only draws it: one line per run and evaluation length, the run's colour (as on the Curves tab)
// with a dash and marker per length. For a task without distances, or evaluation lengths too
// short to reach one, the view says why instead of showing an empty plot.
#pragma once

#include <QWidget>

#include <vector>

#include "train/snapshot.h"      // plain data, no torch
#include "train/train_config.h"  // plain data, no torch

class QComboBox;
class QCPGraph;
class QCustomPlot;
class QLabel;

namespace poslab::ui {

class DistanceAccuracyView : public QWidget {
  Q_OBJECT
 public:
  explicit DistanceAccuracyView(QWidget* parent = nullptr);

  // One evaluation length's line of a run.
  struct Curve {
    long long length = 0;       // the evaluation length T
    QCPGraph* graph = nullptr;  // accuracy vs distance d
  };

  // New runs (their configs, in run order): one graph per run and evaluation length at which the
  // run's task measures distances (the bridge's taskAccuracyDistances); the curves start empty.
  void setRuns(const std::vector<poslab::TrainConfig>& configs);
  void clearData(int run);  // empties run's lines (a reset run)
  void clearAllData();
  // Run's lines: the evaluation's accuracy at each distance, per length (an empty evaluation
  // empties them).
  void showEvaluation(int run, const std::vector<poslab::EvalResult>& eval);
  // The evaluation length shown: -1 (the default) for every length, else one of lengths().
  bool setLength(long long length);  // false for a length no run offers
  long long length() const;
  std::vector<long long> lengths() const;  // the evaluation lengths with distances, ascending
  // Whether some run measures distances at one of its evaluation lengths.
  bool hasDistances() const { return !lengths().empty(); }
  // Run's lines, one per evaluation length with distances (hidden ones included).
  const std::vector<Curve>& curves(int run) const;
  QCustomPlot* plot() const { return plot_; }
  QString infoText() const;
  void replot();  // ranges and replot

 private:
  void describeRuns();       // the messages for the runs (setRuns): waiting and shown
  void updateInfo();         // the one that fits the lines now
  void applyLengthFilter();  // shows the chosen length's lines (all of them for -1)

  std::vector<poslab::TrainConfig> configs_;
  std::vector<std::vector<Curve>> curves_;  // [run][length]
  QComboBox* length_ = nullptr;
  QLabel* info_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  QString waitingText_;  // why there is nothing to see (yet)
  QString shownText_;    // what the lines show
};

}  // namespace poslab::ui
