// The training tab's "Curves" view: training loss and accuracy against the step on shared step
// axes, and the latest evaluation against the evaluation length (train short, test long) in the
// chosen metric; one colour per run. The graphs are kept per run in a named struct (Curves).
#pragma once

#include <QStringList>
#include <QWidget>

#include <vector>

#include "train/snapshot.h"  // plain data, no torch

class QComboBox;
class QCPGraph;
class QCustomPlot;

namespace poslab::ui {

class TrainingCurvesView : public QWidget {
  Q_OBJECT
 public:
  explicit TrainingCurvesView(QWidget* parent = nullptr);

  struct Curves {
    QCPGraph* loss = nullptr;      // training loss vs step
    QCPGraph* accuracy = nullptr;  // training accuracy vs step
    QCPGraph* eval = nullptr;      // evaluation metric vs length (latest evaluation)
  };
  const std::vector<Curves>& curves() const { return curves_; }

  // Graphs for new runs (family names, in run order); no runs: no graphs.
  void setRuns(const QStringList& families);
  void clearData(int run);  // empties run's graphs (a reset run)
  void clearAllData();
  // The snapshot's loss and accuracy at its step (finite values of a step > 0 only).
  void addStep(int run, const poslab::Snapshot& snapshot);
  // Run's evaluation curve: the latest evaluation in the chosen metric.
  void showEvaluation(int run, const std::vector<poslab::EvalResult>& eval);
  // The chosen metric of one evaluation point: accuracy, loss, or (sector-teacher) the final
  // query's attention entropy or effective support; NaN where the point has none.
  double shownMetric(const poslab::EvalResult& point) const;
  void replot();  // rescales and replots the three plots
  // Its plots: loss, training accuracy, evaluation (the run report's figures).
  std::vector<QCustomPlot*> plots() const { return {lossPlot_, accuracyPlot_, evalPlot_}; }

 Q_SIGNALS:
  void metricChanged();  // the evaluation curves need redrawing (showEvaluation)

 private:
  QCustomPlot* lossPlot_ = nullptr;
  QCustomPlot* accuracyPlot_ = nullptr;
  QCustomPlot* evalPlot_ = nullptr;
  QComboBox* evalMetric_ = nullptr;
  std::vector<Curves> curves_;
};

}  // namespace poslab::ui
