#include "training/distance_accuracy_view.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>

#include "bridge/catalog.h"
#include "family_names.h"
#include "plot_style.h"

namespace poslab::ui {

namespace {
// Lines of one run share its colour; the dash and the marker tell its lengths apart (cycling after
// four), the same length alike in every run.
const Qt::PenStyle kLengthDash[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine};
const QCPScatterStyle::ScatterShape kLengthMarker[] = {
    QCPScatterStyle::ssCircle, QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle,
    QCPScatterStyle::ssDiamond};
constexpr long long kLongestSequence = 1LL << 20;  // the longest sequence a task generates
constexpr double kAccuracyMargin = 0.03;           // 0 and 1 stay off the frame
constexpr double kDistanceMargin = 1.4;            // factor beyond the end distances (log axis)

// The evaluation lengths of `config` at which its task measures distances, ascending, unique.
std::vector<long long> distanceLengths(const poslab::TrainConfig& config) {
  std::set<long long> lengths;
  for (long long L : config.run.evalLengths)
    if (!taskAccuracyDistances(config.task, L).empty()) lengths.insert(L);
  return {lengths.begin(), lengths.end()};
}

QString joined(const std::vector<long long>& values) {
  QStringList parts;
  for (long long v : values) parts << QString::number(v);
  return parts.join(", ");
}
}  // namespace

DistanceAccuracyView::DistanceAccuracyView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  length_ = new QComboBox(this);
  length_->setObjectName("distanceLength");
  length_->setToolTip(
      tr("The evaluation length T whose accuracy against the key distance is shown, or every "
         "length at once (one line each: dash and marker = T)"));
  row->addWidget(new QLabel(tr("evaluation length"), this));
  row->addWidget(length_);
  row->addStretch(1);
  layout->addLayout(row);
  info_ = new QLabel(this);
  info_->setObjectName("distanceInfo");
  info_->setWordWrap(true);
  info_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);  // on top without a plot
  info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(info_);

  plot_ = new QCustomPlot(this);
  plot_->setObjectName("distancePlot");
  stylePlot(plot_, tr("key distance d (tokens from the final key back to the stored key)"),
            tr("retrieval accuracy"));
  placeLegendRight(plot_);
  // The distance points are powers of two: ticks at them, labelled 64, 128, 256, ...
  setLogAxis(plot_->xAxis, true);
  auto ticker = QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog);
  ticker->setLogBase(2);
  ticker->setSubTickCount(0);
  plot_->xAxis->setTicker(ticker);
  plot_->xAxis->setNumberFormat("f");
  plot_->xAxis->setNumberPrecision(0);
  // Accuracy keeps its whole range, so runs and lengths compare at a glance; drag and zoom move
  // the distances only.
  plot_->yAxis->setRange(-kAccuracyMargin, 1 + kAccuracyMargin);
  plot_->axisRect()->setRangeDrag(Qt::Horizontal);
  plot_->axisRect()->setRangeZoom(Qt::Horizontal);
  layout->addWidget(plot_, 1);
  layout->addStretch(0);  // takes the space (the message stays on top) while the plot is hidden

  connect(length_, &QComboBox::currentIndexChanged, this, [this] {
    applyLengthFilter();
    replot();
  });
  setRuns({});
}

void DistanceAccuracyView::setRuns(const std::vector<poslab::TrainConfig>& configs) {
  configs_ = configs;
  plot_->clearGraphs();
  curves_.clear();
  std::set<long long> all;
  for (const auto& c : configs_)
    for (long long L : distanceLengths(c)) all.insert(L);
  const std::vector<long long> lengths(all.begin(), all.end());
  for (size_t i = 0; i < configs_.size(); ++i) {
    const QString family = familyShortName(configs_[i].model.family);
    std::vector<Curve> runCurves;
    for (long long L : distanceLengths(configs_[i])) {
      const size_t k =
          static_cast<size_t>(std::find(lengths.begin(), lengths.end(), L) - lengths.begin());
      QCPGraph* g = plot_->addGraph();
      g->setName(tr("%1, T = %2").arg(family).arg(L));
      QPen pen(seriesColor(static_cast<int>(i)), 1.5);
      pen.setStyle(kLengthDash[k % std::size(kLengthDash)]);
      g->setPen(pen);
      g->setScatterStyle(QCPScatterStyle(kLengthMarker[k % std::size(kLengthMarker)], 7));
      runCurves.push_back({L, g});
    }
    curves_.push_back(std::move(runCurves));
  }
  {
    const QSignalBlocker block(length_);
    const long long keep = length();
    length_->clear();
    length_->addItem(tr("every length"), QVariant::fromValue(-1LL));
    for (long long L : lengths) length_->addItem(tr("T = %1").arg(L), QVariant::fromValue(L));
    const int at = length_->findData(QVariant::fromValue(keep));
    length_->setCurrentIndex(std::max(at, 0));
  }
  length_->setEnabled(!lengths.empty());
  plot_->setVisible(!lengths.empty());  // nothing to draw otherwise: the message says why
  applyLengthFilter();
  describeRuns();
  updateInfo();
  replot();
}

void DistanceAccuracyView::clearData(int run) {
  if (run < 0 || run >= static_cast<int>(curves_.size())) return;
  for (const Curve& c : curves_[static_cast<size_t>(run)]) c.graph->data()->clear();
  updateInfo();
}

void DistanceAccuracyView::clearAllData() {
  for (int i = 0; i < static_cast<int>(curves_.size()); ++i) clearData(i);
}

void DistanceAccuracyView::showEvaluation(int run, const std::vector<poslab::EvalResult>& eval) {
  // Runs without lines (a task without distances) have nothing to show.
  if (run < 0 || run >= static_cast<int>(curves_.size()) ||
      curves_[static_cast<size_t>(run)].empty())
    return;
  for (const Curve& c : curves_[static_cast<size_t>(run)]) {
    QVector<double> distances, accuracy;
    for (const poslab::EvalResult& e : eval) {
      if (e.length != c.length) continue;
      for (const auto& [d, a] : e.accuracyByDistance) {
        if (!std::isfinite(a)) continue;
        distances.push_back(static_cast<double>(d));
        accuracy.push_back(a);
      }
    }
    c.graph->setData(distances, accuracy, /*alreadySorted=*/true);  // a map: ascending d
  }
  updateInfo();
}

bool DistanceAccuracyView::setLength(long long length) {
  const int at = length_->findData(QVariant::fromValue(length));
  if (at < 0) return false;
  length_->setCurrentIndex(at);
  return true;
}

long long DistanceAccuracyView::length() const {
  return length_->currentIndex() < 0 ? -1 : length_->currentData().toLongLong();
}

std::vector<long long> DistanceAccuracyView::lengths() const {
  std::vector<long long> out;
  for (int i = 1; i < length_->count(); ++i) out.push_back(length_->itemData(i).toLongLong());
  return out;
}

const std::vector<DistanceAccuracyView::Curve>& DistanceAccuracyView::curves(int run) const {
  return curves_.at(static_cast<size_t>(run));
}

QString DistanceAccuracyView::infoText() const {
  return info_->text();
}

void DistanceAccuracyView::applyLengthFilter() {
  const long long shown = length();
  for (const auto& run : curves_)
    for (const Curve& c : run) {
      const bool visible = shown < 0 || c.length == shown;
      c.graph->setVisible(visible);
      if (visible)
        c.graph->addToLegend();
      else
        c.graph->removeFromLegend();
    }
  // addToLegend appends: put the entries back in run and length order.
  if (shown < 0) {
    plot_->legend->clearItems();
    for (const auto& run : curves_)
      for (const Curve& c : run) c.graph->addToLegend();
  }
}

void DistanceAccuracyView::describeRuns() {
  waitingText_.clear();
  shownText_.clear();
  if (configs_.empty()) {
    waitingText_ =
        tr("Start or load a kv-retrieval run: each evaluation measures its accuracy "
           "against the key distance d, and the lines appear here.");
    return;
  }
  const poslab::TrainConfig& first = configs_.front();  // the panel's runs share their task
  if (!hasDistances()) {
    const std::vector<long long> possible = taskAccuracyDistances(first.task, kLongestSequence);
    if (possible.empty())
      waitingText_ = tr("Accuracy against the key distance is measured for tasks that place the "
                        "queried key at a chosen distance (kv-retrieval); the task trained here "
                        "is %1.")
                         .arg(QString::fromStdString(first.task.id));
    else
      waitingText_ = tr("No evaluation length reaches a key distance: %1 measures at d = %2, … "
                        "below T − 2. Add an evaluation length above %3.")
                         .arg(QString::fromStdString(first.task.id))
                         .arg(possible.front())
                         .arg(possible.front() + 2);
    return;
  }
  QStringList perLength;
  for (long long L : lengths())
    perLength << tr("T = %1: d = %2").arg(L).arg(joined(taskAccuracyDistances(first.task, L)));
  const QString where =
      tr("Distances below T − 2 at each evaluation length (%1); trained at T = %2.")
          .arg(perLength.join(" · "))
          .arg(first.task.trainLength);
  const QString when = first.run.evalEvery > 0
                           ? tr("every %1 steps and after the last").arg(first.run.evalEvery)
                           : tr("after the last step");
  waitingText_ = tr("The accuracy at each key distance appears with the first evaluation (%1). %2")
                     .arg(when, where);
  shownText_ = tr("Latest evaluation: accuracy on %1 sequences per point, each with its queried "
                  "key d tokens before the final key. %2")
                   .arg(first.run.evalSequences)
                   .arg(where);
}

void DistanceAccuracyView::updateInfo() {
  bool any = false;
  for (const auto& run : curves_)
    for (const Curve& c : run) any = any || !c.graph->data()->isEmpty();
  info_->setText(any ? shownText_ : waitingText_);
}

void DistanceAccuracyView::replot() {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& run : curves_)
    for (const Curve& c : run) {
      if (!c.graph->visible()) continue;
      for (auto it = c.graph->data()->constBegin(); it != c.graph->data()->constEnd(); ++it) {
        lo = std::min(lo, it->key);
        hi = std::max(hi, it->key);
      }
    }
  if (!(lo <= hi) && !configs_.empty()) {  // no points yet: the distances the lengths will have
    for (long long L : lengths())
      for (long long d : taskAccuracyDistances(configs_.front().task, L)) {
        lo = std::min(lo, static_cast<double>(d));
        hi = std::max(hi, static_cast<double>(d));
      }
  }
  if (lo <= hi) plot_->xAxis->setRange(lo / kDistanceMargin, hi * kDistanceMargin);
  plot_->yAxis->setRange(-kAccuracyMargin, 1 + kAccuracyMargin);
  plot_->replot();
}

}  // namespace poslab::ui
