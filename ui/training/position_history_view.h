// The learned position parameters of each run (Snapshot::position: gamma, eta, gates, masses,
// kappa, delta, ..., mean over the layers) against the step. One parameter at a time; each run
// (family) a colour; its components (one per head or block) either as one line each, in the run's
// colour with a dash per component, or averaged into one line.
#pragma once

#include <QStringList>
#include <QWidget>

#include <map>
#include <string>
#include <vector>

#include "train/snapshot.h"  // plain data, no torch

class QCheckBox;
class QComboBox;
class QCPGraph;
class QCustomPlot;
class QLabel;

namespace poslab::ui {

class PositionHistoryView : public QWidget {
  Q_OBJECT
 public:
  explicit PositionHistoryView(QWidget* parent = nullptr);

  // New runs (family names, in run order): drops all history.
  void setRuns(const QStringList& families);
  // Records the snapshot's parameters at its step; a Reset snapshot clears the run first.
  void addSnapshot(int run, const poslab::Snapshot& snapshot);
  void clearHistory();
  // Rebuilds the graphs from the history when the parameter or mode changed, else appends only
  // the new points (cheap at 25 Hz); then rescales and replots.
  void replot();

  // The parameter by its Snapshot::position name ("gamma"); the list and the axis show its
  // symbol (learnedParamSymbol: γ).
  bool setParameter(const QString& name);  // false when no run has it
  QString parameter() const;
  void setEachComponent(bool each);
  // Graphs of run `run` for the shown parameter: one (mean) or one per component; empty when the
  // run has no such parameter.
  std::vector<QCPGraph*> graphs(int run) const;
  QCustomPlot* plot() const { return plot_; }

 private:
  struct Point {
    double step = 0;
    std::vector<double> values;
  };
  struct Run {
    QString family;
    std::map<std::string, std::vector<Point>> history;  // parameter -> points in step order
    std::vector<QCPGraph*> graphs;                      // of the shown parameter
    size_t plotted = 0;                                 // points already in graphs
  };
  void rebuildGraphs();
  void appendPoints(Run& run, size_t from);
  void updateNames();

  QComboBox* parameter_ = nullptr;
  QCheckBox* each_ = nullptr;
  QLabel* note_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  std::vector<Run> runs_;
  bool chosen_ = false;  // the user picked the parameter (kept while it exists)
  bool dirty_ = true;    // graphs must be rebuilt (parameter, mode or runs changed)
};

}  // namespace poslab::ui
