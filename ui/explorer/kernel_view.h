// Tab (a): the family's lag basis functions, one graph each, and its kernel K(d) in a thick pen,
// over a chosen number of lags on a linear or log lag axis.
#pragma once

#include <QString>
#include <QWidget>

#include <map>

#include "bridge/explorer_types.h"

class QCheckBox;
class QComboBox;
class QCPGraph;
class QCustomPlot;

namespace poslab::ui {

class KernelView : public QWidget {
  Q_OBJECT
 public:
  explicit KernelView(QWidget* parent = nullptr);

  void fillRequest(ExplorerRequest& request) const;
  void showResult(const ExplorerResult& result);

  QCustomPlot* plot() const { return plot_; }
  // The graph of a basis function by its core name ("exp*cos"), or the kernel; null if absent.
  QCPGraph* basisGraph(const QString& name) const;
  QCPGraph* kernelGraph() const { return graphs_.kernel; }

 Q_SIGNALS:
  void settingsChanged();

 private:
  struct Graphs {
    QCPGraph* kernel = nullptr;              // K(d), thick
    std::map<QString, QCPGraph*> basis;      // by basis name
  };

  QComboBox* lagCount_ = nullptr;
  QCheckBox* logLag_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  Graphs graphs_;
};

}  // namespace poslab::ui
