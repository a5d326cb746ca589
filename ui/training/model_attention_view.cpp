#include "training/model_attention_view.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "plot_style.h"

namespace poslab::ui {

ModelAttentionView::ModelAttentionView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  run_ = new QComboBox(this);
  run_->setObjectName("modelAttentionRun");
  length_ = new QComboBox(this);
  length_->setObjectName("modelAttentionLength");
  length_->setToolTip(tr("T of the sample input: the train length or an evaluation length"));
  layer_ = new QSpinBox(this);
  layer_->setObjectName("modelAttentionLayer");
  layer_->setRange(1, 1);
  head_ = new QSpinBox(this);
  head_->setObjectName("modelAttentionHead");
  head_->setRange(1, 1);
  logColor_ = new QCheckBox(tr("log colour"), this);
  logColor_->setObjectName("modelAttentionLog");
  logColor_->setChecked(true);
  row->addWidget(new QLabel(tr("run"), this));
  row->addWidget(run_);
  row->addWidget(new QLabel(tr("T"), this));
  row->addWidget(length_);
  row->addWidget(new QLabel(tr("layer"), this));
  row->addWidget(layer_);
  row->addWidget(new QLabel(tr("head"), this));
  row->addWidget(head_);
  row->addWidget(logColor_);
  row->addStretch(1);
  layout->addLayout(row);
  info_ =
      new QLabel(tr("press Play, Step or Pause: the map of the trained model appears here"), this);
  info_->setObjectName("modelAttentionInfo");
  info_->setWordWrap(true);
  layout->addWidget(info_);

  plot_ = new QCustomPlot(this);
  plot_->setObjectName("modelAttentionPlot");
  const Heatmap heatmap = addAttentionHeatmap(plot_, tr("attention weight"));
  map_ = heatmap.map;
  scale_ = heatmap.scale;
  plot_->setMinimumSize(300, 240);
  layout->addWidget(plot_, 1);

  connect(run_, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT requestChanged(); });
  connect(length_, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT requestChanged(); });
  connect(layer_, &QSpinBox::valueChanged, this, [this] { render(); });
  connect(head_, &QSpinBox::valueChanged, this, [this] { render(); });
  connect(logColor_, &QCheckBox::toggled, this, [this] { render(); });
}

void ModelAttentionView::setRuns(const QStringList& families, const QStringList& toolTips) {
  {
    const QSignalBlocker block(run_);
    const int keep = run_->currentIndex();
    run_->clear();
    run_->addItems(families);
    for (int i = 0; i < families.size() && i < toolTips.size(); ++i)
      run_->setItemData(i, toolTips[i], Qt::ToolTipRole);  // a loaded family's path and hash
    if (keep >= 0 && keep < families.size()) run_->setCurrentIndex(keep);
  }
  last_ = TrainingAttention{};
  shown_.clear();
  map_->data()->clear();
  info_->setText(tr("press Play, Step or Pause: the map of the trained model appears here"));
  plot_->replot();
}

void ModelAttentionView::setLengths(const std::vector<long long>& lengths) {
  const QSignalBlocker block(length_);
  const QString keep = length_->currentText();
  length_->clear();
  std::vector<long long> seen;
  for (long long l : lengths) {
    if (std::find(seen.begin(), seen.end(), l) != seen.end()) continue;
    seen.push_back(l);
    length_->addItem(QString::number(l), l);
  }
  if (length_->findText(keep) >= 0) length_->setCurrentText(keep);
}

int ModelAttentionView::run() const {
  return run_->currentIndex();
}

long long ModelAttentionView::length() const {
  return length_->currentData().toLongLong();
}

QString ModelAttentionView::infoText() const {
  return info_->text();
}

void ModelAttentionView::showAttention(const TrainingAttention& a) {
  if (!a.error.empty()) {
    info_->setText(tr("no map: %1").arg(QString::fromStdString(a.error)));
    return;
  }
  last_ = a;
  const auto& maps = a.sample.maps;
  {
    const QSignalBlocker b1(layer_), b2(head_);
    layer_->setRange(1, std::max<int>(1, static_cast<int>(maps.size())));
    head_->setRange(1, std::max<int>(1, maps.empty() ? 1 : static_cast<int>(maps[0].size())));
  }
  render();
}

void ModelAttentionView::render() {
  const auto& maps = last_.sample.maps;
  const size_t l = static_cast<size_t>(layer_->value() - 1),
               h = static_cast<size_t>(head_->value() - 1);
  if (l >= maps.size() || h >= maps[l].size()) return;
  shown_ = maps[l][h];
  const int n = static_cast<int>(last_.sample.size);
  const double T = static_cast<double>(last_.sample.length);
  map_->data()->setSize(n, n);
  // Cell centres in positions: exact maps sit on 0..T-1, pooled cells on their blocks' centres.
  const double half = (T / n - 1) / 2;
  map_->data()->setRange(QCPRange(half, T - 1 - half), QCPRange(half, T - 1 - half));
  double largest = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double w = shown_[static_cast<size_t>(i) * n + j];
      // Zero weight: the causal mask (j > i), transparent like the explorer's.
      map_->data()->setCell(j, i, w > 0 ? w : std::nan(""));
      largest = std::max(largest, w);
    }
  setHeatmapColorRange({map_, scale_}, largest, logColor_->isChecked());
  plot_->xAxis->setRange(-0.5, T - 0.5);
  plot_->yAxis->setRange(-0.5, T - 0.5);
  info_->setText(tr("%1, layer %2 head %3, step %4: attention on sample input 1 (T = %5%6)")
                     .arg(run_->currentText())
                     .arg(layer_->value())
                     .arg(head_->value())
                     .arg(last_.step)
                     .arg(last_.sample.length)
                     .arg(n < last_.sample.length
                              ? tr(", averaged over %1 x %1 blocks").arg(last_.sample.length / n)
                              : QString()));
  plot_->replot();
}

}  // namespace poslab::ui
