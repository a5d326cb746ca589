#include "training/position_history_view.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "encodings/params.h"
#include "math/formula_unicode.h"
#include "plot_style.h"

namespace poslab::ui {

namespace {
// Components of one run share its colour; the dash tells them apart (cycles after four).
const Qt::PenStyle kComponentDash[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine};

// "gamma" -> "γ", "gate_FJ" -> "g_FJ": what the list and the axis show for a parameter.
QString symbolText(const QString& name) {
  return formulaToUnicode(QString::fromStdString(learnedParamSymbol(name.toStdString())));
}
}  // namespace

PositionHistoryView::PositionHistoryView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  parameter_ = new QComboBox(this);
  parameter_->setObjectName("positionParameter");
  parameter_->setToolTip(tr("A learned position parameter"));
  parameter_->setMinimumContentsLength(12);
  layer_ = new QComboBox(this);
  layer_->setObjectName("positionLayer");
  layer_->setToolTip(
      tr("The mean over the layers (what reports show), or one layer's own values: each layer "
         "learns its own gates, masses, γ, ..."));
  layer_->addItem(tr("mean over layers"), -1);
  each_ = new QCheckBox(tr("one line per head / block"), this);
  each_->setObjectName("positionEachComponent");
  each_->setToolTip(tr("Off: the mean over the parameter's components"));
  note_ = new QLabel(this);
  note_->setObjectName("positionNote");
  note_->setWordWrap(true);
  row->addWidget(new QLabel(tr("parameter"), this));
  row->addWidget(parameter_);
  row->addWidget(layer_);
  row->addWidget(each_);
  row->addWidget(note_, 1);
  layout->addLayout(row);
  plot_ = new QCustomPlot(this);
  plot_->setObjectName("positionPlot");
  stylePlot(plot_, tr("step"), tr("value"));
  placeLegendTop(plot_);
  plot_->setMinimumSize(300, 200);
  layout->addWidget(plot_, 1);
  connect(parameter_, &QComboBox::activated, this, [this] { chosen_ = true; });
  connect(parameter_, &QComboBox::currentIndexChanged, this, [this] {
    dirty_ = true;
    replot();
  });
  connect(each_, &QCheckBox::toggled, this, [this] {
    dirty_ = true;
    replot();
  });
  connect(layer_, &QComboBox::currentIndexChanged, this, [this] {
    dirty_ = true;
    replot();
  });
  updateNames();
  updateLayers();
}

void PositionHistoryView::setRuns(const QStringList& families) {
  runs_.clear();
  chosen_ = false;
  for (const QString& f : families) runs_.push_back(Run{f, {}, {}, 0});
  dirty_ = true;
  updateNames();
  updateLayers();
  replot();
}

void PositionHistoryView::clearHistory() {
  for (Run& r : runs_) r.history.clear();
  dirty_ = true;
  replot();
}

void PositionHistoryView::addSnapshot(int run, const poslab::Snapshot& s) {
  if (run < 0 || run >= static_cast<int>(runs_.size())) return;
  Run& r = runs_[static_cast<size_t>(run)];
  if (s.event == poslab::SnapshotEvent::Reset) {
    r.history.clear();
    dirty_ = true;
  } else if (s.event == poslab::SnapshotEvent::Notice || s.step <= 0) {
    return;  // messages without a step carry no new parameters
  }
  const size_t sources = 1 + s.positionLayers.size();
  const bool moreLayers = r.history.size() < sources;
  if (moreLayers) r.history.resize(sources);
  bool newName = false;
  auto record = [&](History& history, const std::map<std::string, std::vector<double>>& values) {
    for (const auto& [name, v] : values) {
      auto& points = history[name];
      newName = newName || points.empty();
      if (!points.empty() && points.back().step >= static_cast<double>(s.step)) continue;
      points.push_back({static_cast<double>(s.step), v});
    }
  };
  record(r.history[0], s.position);
  for (size_t l = 0; l < s.positionLayers.size(); ++l)
    record(r.history[1 + l], s.positionLayers[l]);
  if (newName) updateNames();
  if (moreLayers) updateLayers();
}

bool PositionHistoryView::setParameter(const QString& name) {
  const int i = parameter_->findData(name);
  if (i < 0) return false;
  parameter_->setCurrentIndex(i);
  chosen_ = true;
  return true;
}

QString PositionHistoryView::parameter() const {
  return parameter_->currentData().toString();
}

void PositionHistoryView::setEachComponent(bool each) {
  each_->setChecked(each);
}

bool PositionHistoryView::setLayer(int layer) {
  const int i = layer_->findData(layer);
  if (i < 0) return false;
  layer_->setCurrentIndex(i);
  return true;
}

int PositionHistoryView::layer() const {
  return layer_->currentIndex() < 0 ? -1 : layer_->currentData().toInt();
}

int PositionHistoryView::layerCount() const {
  size_t layers = 0;
  for (const Run& r : runs_)
    layers = std::max(layers, r.history.empty() ? 0 : r.history.size() - 1);
  return static_cast<int>(layers);
}

const std::vector<PositionHistoryView::Point>* PositionHistoryView::shownPoints(
    const Run& r) const {
  const size_t source = static_cast<size_t>(layer() + 1);
  if (source >= r.history.size()) return nullptr;
  auto it = r.history[source].find(parameter().toStdString());
  return it == r.history[source].end() || it->second.empty() ? nullptr : &it->second;
}

std::vector<QCPGraph*> PositionHistoryView::graphs(int run) const {
  return runs_.at(static_cast<size_t>(run)).graphs;
}

void PositionHistoryView::updateNames() {
  std::set<std::string> names;
  for (const Run& r : runs_)
    for (const History& h : r.history)
      for (const auto& [name, points] : h) names.insert(name);
  QStringList list;
  for (const auto& n : names) list << QString::fromStdString(n);
  QStringList shown;
  for (int i = 0; i < parameter_->count(); ++i) shown << parameter_->itemData(i).toString();
  if (list == shown) return;
  const QString keep = parameter();
  {
    const QSignalBlocker block(parameter_);
    parameter_->clear();
    for (const QString& n : list) parameter_->addItem(symbolText(n), n);
    // The user's choice stays; until there is one, gamma when some run has it (the parameter the
    // Jordan families are about), whichever run reported first.
    const QString pick = (chosen_ || !list.contains("gamma")) && list.contains(keep) ? keep
                         : list.contains("gamma")                                    ? "gamma"
                                                                                     : QString();
    if (!pick.isEmpty()) parameter_->setCurrentIndex(parameter_->findData(pick));
  }
  dirty_ = true;
}

void PositionHistoryView::updateLayers() {
  const int layers = layerCount();
  // One layer's values are the mean: the list appears with the second layer.
  const int offered = layers > 1 ? layers : 0;
  if (layer_->count() != offered + 1) {
    const QSignalBlocker block(layer_);
    const int keep = layer();
    layer_->clear();
    layer_->addItem(tr("mean over layers"), -1);
    for (int l = 0; l < offered; ++l) layer_->addItem(tr("layer %1").arg(l + 1), l);
    layer_->setCurrentIndex(std::max(0, layer_->findData(keep)));
    dirty_ = true;
  }
  layer_->setVisible(offered > 0);
}

void PositionHistoryView::rebuildGraphs() {
  plot_->clearGraphs();
  const bool each = each_->isChecked();
  QStringList without;
  size_t components = 0;
  for (size_t i = 0; i < runs_.size(); ++i) {
    Run& r = runs_[i];
    r.graphs.clear();
    r.plotted = 0;
    const std::vector<Point>* points = shownPoints(r);
    if (!points) {
      without << r.family;
      continue;
    }
    const size_t n = each ? points->front().values.size() : 1;
    components = std::max(components, points->front().values.size());
    for (size_t c = 0; c < n; ++c) {
      QCPGraph* g = plot_->addGraph();
      QPen pen(seriesColor(static_cast<int>(i)), 1.5);
      pen.setStyle(kComponentDash[c % std::size(kComponentDash)]);
      g->setPen(pen);
      g->setName(r.family);
      if (c > 0) g->removeFromLegend();  // the legend names families; dashes are components
      r.graphs.push_back(g);
    }
  }
  const QString symbol = parameter().isEmpty() ? QString() : symbolText(parameter());
  // Which layer: said only when the model has more than one.
  const QString p = symbol.isEmpty() || layerCount() < 2 ? symbol
                    : layer() < 0 ? tr("%1, mean over %2 layers").arg(symbol).arg(layerCount())
                                  : tr("%1 in layer %2").arg(symbol).arg(layer() + 1);
  if (p.isEmpty()) {
    plot_->yAxis->setLabel(tr("value"));
  } else if (each && components > 1) {
    plot_->yAxis->setLabel(tr("%1 (one line per component; dash = component)").arg(p));
  } else if (components > 1) {
    plot_->yAxis->setLabel(tr("%1 (mean of %2 components)").arg(p).arg(components));
  } else {
    plot_->yAxis->setLabel(p);
  }
  if (runs_.empty())
    note_->setText(tr("press Play or Step to train"));
  else if (parameter_->count() == 0)
    note_->setText(
        tr("no learned position parameters yet (they appear after the first step; "
           "rope, alibi and pj-rotary have none)"));
  else if (!without.isEmpty())
    note_->setText(tr("without %1: %2").arg(symbol, without.join(", ")));
  else
    note_->clear();
  dirty_ = false;
}

void PositionHistoryView::appendPoints(Run& r, size_t from) {
  const std::vector<Point>* shown = shownPoints(r);
  if (!shown || r.graphs.empty()) return;
  const std::vector<Point>& points = *shown;
  const bool each = r.graphs.size() > 1 || each_->isChecked();
  for (size_t c = 0; c < r.graphs.size(); ++c) {
    QVector<double> keys, values;
    for (size_t k = from; k < points.size(); ++k) {
      const auto& v = points[k].values;
      if (v.empty()) continue;
      const double y =
          each ? (c < v.size() ? v[c] : NAN)
               : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
      if (!std::isfinite(y)) continue;
      keys.push_back(points[k].step);
      values.push_back(y);
    }
    r.graphs[c]->addData(keys, values, /*alreadySorted=*/true);
  }
  r.plotted = points.size();
}

void PositionHistoryView::replot() {
  if (dirty_) rebuildGraphs();
  for (Run& r : runs_) {
    if (!shownPoints(r)) continue;
    if (r.graphs.empty()) {  // the parameter appeared for this run after the graphs were built
      rebuildGraphs();
      break;
    }
  }
  for (Run& r : runs_) appendPoints(r, r.plotted);
  plot_->rescaleAxes();
  plot_->yAxis->scaleRange(1.1);
  // gamma starts at 1e-4 and may move in its 6th digit: enough digits that ticks differ.
  const QCPRange y = plot_->yAxis->range();
  const double magnitude = std::max(std::abs(y.lower), std::abs(y.upper));
  const int digits = y.size() > 0 && magnitude > 0
                         ? static_cast<int>(std::ceil(std::log10(magnitude / y.size()))) + 2
                         : 3;
  plot_->yAxis->setNumberFormat("g");
  plot_->yAxis->setNumberPrecision(std::clamp(digits, 3, 12));
  plot_->replot();
}

}  // namespace poslab::ui
