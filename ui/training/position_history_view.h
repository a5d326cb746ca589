// The learned position parameters of each run (gamma, eta, gates, masses, kappa, delta, ...)
// against the step: their mean over the layers (Snapshot::position, as reports show them) or one
// layer's own values (Snapshot::positionLayers, as `poslab-cli train --per-layer`). One parameter
// at a time; each run (family) a colour; its components (one per head or block) either as one line
// each, in the run's colour with a dash per component, or averaged into one line.
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
  // Records the snapshot's parameters (the mean and each layer's) at its step; a Reset snapshot
  // clears the run first.
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
  // The layer shown: -1 (the default) for the mean over the layers, else 0-based (the list says
  // "layer 1" for 0, as the attention view). False for a layer no run has reported.
  bool setLayer(int layer);
  int layer() const;
  int layerCount() const;  // the most layers a run has reported (0 before any snapshot)
  // Graphs of run `run` for the shown parameter and layer: one (mean) or one per component; empty
  // when the run has no such parameter (or layer).
  std::vector<QCPGraph*> graphs(int run) const;
  QCustomPlot* plot() const { return plot_; }

 private:
  struct Point {
    double step = 0;
    std::vector<double> values;
  };
  using History = std::map<std::string, std::vector<Point>>;  // parameter -> points, step order
  struct Run {
    QString family;
    // [0]: the mean over the layers (Snapshot::position); [1 + l]: layer l's own values.
    std::vector<History> history;
    std::vector<QCPGraph*> graphs;  // of the shown parameter and layer
    size_t plotted = 0;             // points already in graphs
  };
  // Run's points of the shown parameter at the shown layer (the mean for -1); null when none.
  const std::vector<Point>* shownPoints(const Run& run) const;
  void rebuildGraphs();
  void appendPoints(Run& run, size_t from);
  void updateNames();
  void updateLayers();  // the layer list, when a run reported more layers

  QComboBox* parameter_ = nullptr;
  QComboBox* layer_ = nullptr;
  QCheckBox* each_ = nullptr;
  QLabel* note_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  std::vector<Run> runs_;
  bool chosen_ = false;  // the user picked the parameter (kept while it exists)
  bool dirty_ = true;    // graphs must be rebuilt (parameter, mode or runs changed)
};

}  // namespace poslab::ui
