#include "training/pope_usage_view.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "analysis/pope_frequency_usage.h"  // torch-free
#include "family_names.h"
#include "math/formula_unicode.h"
#include "plot_style.h"

namespace poslab::ui {

namespace {
// As `poslab-cli pope-usage` prints its numbers: three significant digits, "-" when undefined.
QString number(double v) {
  return std::isfinite(v) ? QString::number(v, 'g', 3) : QStringLiteral("-");
}
}  // namespace

// The x axis: the frequency index and the family's schedule (core's frequencySchedule: PoPE's D
// components, RoPE's D/2 pairs), in the formulas' notation.
QString PopeUsageView::frequencyAxisTitle(const std::string& family) {
  const QString schedule = QString::fromStdString(poslab::frequencySchedule(family));
  return tr("frequency index c (%1: c = 0 is the fastest)").arg(formulaToUnicode(schedule));
}

bool PopeUsageView::hasPopeUsage(const std::string& family) {
  const auto& families = poslab::frequencyUsageFamilies();  // MATH 4.6: PoPE and RoPE
  return std::find(families.begin(), families.end(), family) != families.end();
}

PopeUsageView::PopeUsageView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  run_ = new QComboBox(this);
  run_->setObjectName("popeUsageRun");
  layer_ = new QComboBox(this);
  layer_->setObjectName("popeUsageLayer");
  head_ = new QComboBox(this);
  head_->setObjectName("popeUsageHead");
  head_->setToolTip(tr("one head's shares, or the mean over the layer's heads"));
  measure_ = new QPushButton(tr("Measure"), this);
  measure_->setObjectName("popeUsageMeasure");
  measure_->setToolTip(tr("Run %1 sequences of the task at the training length through the model "
                          "and read each layer's query and key magnitudes per frequency")
                           .arg(kSequences));
  row->addWidget(new QLabel(tr("run"), this));
  row->addWidget(run_);
  row->addWidget(new QLabel(tr("layer"), this));
  row->addWidget(layer_);
  row->addWidget(new QLabel(tr("head"), this));
  row->addWidget(head_);
  row->addWidget(measure_);
  row->addStretch(1);
  layout->addLayout(row);
  info_ = new QLabel(this);
  info_->setObjectName("popeUsageInfo");
  info_->setWordWrap(true);
  info_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);  // on top without a plot
  info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(info_);

  plot_ = new QCustomPlot(this);
  plot_->setObjectName("popeUsagePlot");
  stylePlot(plot_, frequencyAxisTitle(poslab::frequencyUsageFamilies().front()), tr("usage share"));
  // Frequencies are whole indices: ticks at integers (or multiples when zoomed out).
  QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
  ticker->setTickStep(1.0);
  ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  plot_->xAxis->setTicker(ticker);
  plot_->axisRect()->setRangeDrag(Qt::Horizontal);
  plot_->axisRect()->setRangeZoom(Qt::Horizontal);
  bars_ = new QCPBars(plot_->xAxis, plot_->yAxis);
  bars_->setName(tr("usage share"));
  bars_->setWidth(0.8);
  bars_->setPen(QPen(seriesColor(0).darker(120)));
  bars_->setBrush(seriesColor(0));
  even_ = new QCPItemStraightLine(plot_);
  even_->setPen(QPen(QColor(90, 90, 90), 1.2, Qt::DashLine));
  even_->setVisible(false);
  layout->addWidget(plot_, 1);
  layout->addStretch(0);  // takes the space (the message stays on top) while the plot is hidden

  connect(run_, &QComboBox::currentIndexChanged, this, [this] { onRunChanged(); });
  connect(layer_, &QComboBox::currentIndexChanged, this, [this] { draw(); });
  connect(head_, &QComboBox::currentIndexChanged, this, [this] { draw(); });
  connect(measure_, &QPushButton::clicked, this, [this] { Q_EMIT measureRequested(); });
  onRunChanged();
}

void PopeUsageView::setRuns(const std::vector<poslab::TrainConfig>& configs) {
  configs_ = configs;
  {
    const QSignalBlocker block(run_);
    const int keep = run_->currentIndex();
    run_->clear();
    for (const auto& c : configs) {
      run_->addItem(familyShortName(c.model.family));
      run_->setItemData(run_->count() - 1, familyToolTip(c.model.family), Qt::ToolTipRole);
    }
    // The box selects its first item by itself: only a choice made before counts.
    run_->setCurrentIndex(keep >= 0 && keep < run_->count() ? keep : -1);
    // Otherwise a PoPE run when there is one, else a RoPE run: the others have nothing to measure.
    for (const std::string& family : poslab::frequencyUsageFamilies())
      for (int i = 0; !measurable() && i < run_->count(); ++i)
        if (configs_[static_cast<size_t>(i)].model.family == family) run_->setCurrentIndex(i);
  }
  onRunChanged();
}

int PopeUsageView::run() const {
  return run_->currentIndex();
}

long long PopeUsageView::length() const {
  const int i = run();
  if (i < 0 || i >= static_cast<int>(configs_.size())) return -1;
  return configs_[static_cast<size_t>(i)].task.trainLength;
}

bool PopeUsageView::measurable() const {
  const int i = run();
  return i >= 0 && i < static_cast<int>(configs_.size()) &&
         hasPopeUsage(configs_[static_cast<size_t>(i)].model.family);
}

QString PopeUsageView::infoText() const {
  return info_->text();
}

std::vector<std::pair<double, double>> PopeUsageView::bars() const {
  std::vector<std::pair<double, double>> out;
  for (auto it = bars_->data()->constBegin(); it != bars_->data()->constEnd(); ++it)
    out.emplace_back(it->key, it->value);
  return out;
}

void PopeUsageView::onRunChanged() {
  const int i = run();
  const bool can = measurable();
  plot_->setVisible(can);  // nothing to draw for other families: the message says why
  if (can)
    plot_->xAxis->setLabel(frequencyAxisTitle(configs_[static_cast<size_t>(i)].model.family));
  measure_->setEnabled(can);
  clearPlot();
  if (i < 0)
    info_->setText(tr("start or load a PoPE or RoPE run, then press Measure"));
  else if (!can)
    info_->setText(
        tr("Frequency usage is measured for PoPE and RoPE runs; this run's family is %1.")
            .arg(QString::fromStdString(configs_[static_cast<size_t>(i)].model.family)));
  else
    info_->setText(tr("press Measure: each frequency's share of the score at T = %1 appears here")
                       .arg(length()));
}

void PopeUsageView::clearPlot() {
  last_ = TrainingPopeUsage{};
  {
    const QSignalBlocker blockLayer(layer_), blockHead(head_);
    layer_->clear();
    head_->clear();
  }
  layer_->setEnabled(false);
  head_->setEnabled(false);
  bars_->data()->clear();
  even_->setVisible(false);
  plot_->replot();
}

void PopeUsageView::setMeasuring() {
  info_->setText(tr("measuring %1 at T = %2 (%3 sequences)...")
                     .arg(run_->currentText())
                     .arg(length())
                     .arg(kSequences));
}

void PopeUsageView::showUsage(const TrainingPopeUsage& u) {
  if (!u.error.isEmpty()) {
    clearPlot();
    info_->setText(tr("no frequency usage: %1").arg(u.error));
    return;
  }
  const int keepLayer = std::max(0, layer_->currentIndex());
  const int keepHead = std::max(0, head_->currentIndex());
  last_ = u;
  {
    const QSignalBlocker blockLayer(layer_), blockHead(head_);
    layer_->clear();
    for (size_t l = 0; l < u.usage.layerUsage.size(); ++l) layer_->addItem(QString::number(l + 1));
    head_->clear();
    head_->addItem(tr("mean"));
    const size_t heads = u.usage.usage.empty() ? 0 : u.usage.usage.front().size();
    for (size_t h = 0; h < heads; ++h) head_->addItem(QString::number(h + 1));
    layer_->setCurrentIndex(std::min(keepLayer, layer_->count() - 1));
    head_->setCurrentIndex(std::min(keepHead, head_->count() - 1));
  }
  layer_->setEnabled(layer_->count() > 1);
  head_->setEnabled(head_->count() > 1);
  draw();
}

void PopeUsageView::draw() {
  const poslab::PopeFrequencyUsage& u = last_.usage;
  const int l = layer_->currentIndex(), h = head_->currentIndex();
  if (l < 0 || static_cast<size_t>(l) >= u.layerUsage.size()) return;
  const std::vector<double>& share =
      h <= 0 ? u.layerUsage[static_cast<size_t>(l)]
             : u.usage[static_cast<size_t>(l)][static_cast<size_t>(h - 1)];
  QVector<double> keys, values;
  double largest = 0;
  for (size_t c = 0; c < share.size(); ++c) {
    keys.push_back(static_cast<double>(c));
    values.push_back(share[c]);
    if (std::isfinite(share[c])) largest = std::max(largest, share[c]);
  }
  bars_->setData(keys, values, true);
  const double even = share.empty() ? 0 : 1.0 / static_cast<double>(share.size());
  even_->point1->setCoords(0, even);
  even_->point2->setCoords(1, even);
  even_->setVisible(!share.empty());
  plot_->xAxis->setRange(-0.6, static_cast<double>(share.size()) - 0.4);
  plot_->yAxis->setRange(0, 1.15 * std::max(largest, even));
  plot_->replot();
  info_->setText(tr("%1 at step %2: T = %3, %4 sequences of the task. Layer %5: %6 effective "
                    "frequencies of %7 (exp of the usage entropy; %7 is an even spread, dashed "
                    "line). Each bar: frequency c's share of the mean amplitude %9 of the "
                    "score over causal pairs%8.")
                     .arg(run_->currentText())
                     .arg(last_.step)
                     .arg(u.length)
                     .arg(u.sequences)
                     .arg(l + 1)
                     .arg(number(u.layerEffectiveFrequencies[static_cast<size_t>(l)]))
                     .arg(static_cast<qulonglong>(u.theta.size()))
                     .arg(h <= 0 ? tr(", averaged over the heads") : tr(", head %1").arg(h))
                     .arg(formulaToUnicode(QStringLiteral("μ_q μ_k"))));
}

}  // namespace poslab::ui
