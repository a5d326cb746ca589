#include "explorer/attention_view.h"

#include <algorithm>

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

#include "lessons/window_state_check.h"
#include "math/formula_unicode.h"
#include "plot_style.h"

namespace poslab::ui {

namespace {
// Below this the logits are Toeplitz up to float64 rounding (as `poslab-cli attention` says).
constexpr double kToeplitzTolerance = 1e-9;
}  // namespace

AttentionView::AttentionView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* controls = new QHBoxLayout;
  T_ = new QComboBox(this);
  T_->setObjectName("attentionT");
  for (long long t : lengths()) T_->addItem(QString::number(t), static_cast<int>(t));
  T_->setCurrentText("128");
  head_ = new QSpinBox(this);
  head_->setObjectName("attentionHead");
  head_->setRange(1, 1);
  head_->setToolTip(tr("head 1..H of multi-head families (ALiBi slopes, per-head frequencies)"));
  logColor_ = new QCheckBox(tr("log colour scale"), this);
  logColor_->setObjectName("logColor");
  logColor_->setChecked(true);
  toeplitz_ = new QLabel(this);
  toeplitz_->setObjectName("toeplitz");
  controls->addWidget(new QLabel(tr("T"), this));
  controls->addWidget(T_);
  controls->addWidget(new QLabel(tr("head"), this));
  controls->addWidget(head_);
  controls->addWidget(logColor_);
  controls->addWidget(toeplitz_, 1);
  layout->addLayout(controls);

  plot_ = new QCustomPlot(this);
  plot_->setObjectName("attentionPlot");
  const Heatmap heatmap =
      addAttentionHeatmap(plot_, formulaToUnicode(tr("attention weight softmax_j l(i, j)")));
  map_ = heatmap.map;
  scale_ = heatmap.scale;
  layout->addWidget(plot_, 1);

  connect(T_, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT settingsChanged(); });
  connect(head_, &QSpinBox::valueChanged, this, [this] { Q_EMIT settingsChanged(); });
  connect(logColor_, &QCheckBox::toggled, this, [this] { render(); });
}

std::vector<long long> AttentionView::lengths() {
  return attentionViewLengths();  // core's, which a lesson's state is checked against
}

AttentionViewSettings AttentionView::settings() const {
  AttentionViewSettings s;
  s.map.T = T_->currentData().toLongLong();
  s.map.head = head_->value();
  s.logColor = logColor_->isChecked();
  return s;
}

void AttentionView::setSettings(const AttentionViewSettings& s) {
  const int index = T_->findData(static_cast<int>(s.map.T));
  if (index >= 0) T_->setCurrentIndex(index);
  head_->setMaximum(std::max<int>(head_->maximum(), static_cast<int>(s.map.head)));
  head_->setValue(static_cast<int>(s.map.head));
  logColor_->setChecked(s.logColor);
}

void AttentionView::fillRequest(ExplorerRequest& request) const {
  request.attention = settings().map;
}

QString AttentionView::toeplitzText() const {
  return toeplitz_->text();
}

void AttentionView::showResult(const ExplorerResult& result) {
  const AttentionResult& a = result.attention;
  {
    const QSignalBlocker block(head_);  // the family's head count is not a user change
    head_->setRange(1, static_cast<int>(a.heads));
    head_->setValue(static_cast<int>(a.head));
    head_->setEnabled(a.heads > 1);
  }
  last_ = a;
  render();
  const bool toeplitz = a.toeplitzDeviation < kToeplitzTolerance;
  toeplitz_->setText(tr("max |l(i,j) − l(i+1,j+1)| = %1: %2")
                         .arg(a.toeplitzDeviation, 0, 'g', 3)
                         .arg(toeplitz ? tr("Toeplitz logits (depend on the lag only)")
                                       : tr("not Toeplitz (depend on absolute positions)")));
}

void AttentionView::render() {
  const AttentionResult& a = last_;
  const int T = static_cast<int>(a.T);
  if (T == 0) return;
  map_->data()->setSize(T, T);
  map_->data()->setRange(QCPRange(0, T - 1), QCPRange(0, T - 1));
  double largest = 0;
  for (int i = 0; i < T; ++i) {
    for (int j = 0; j < T; ++j) {
      const double w = a.weights[static_cast<size_t>(i) * T + j];
      map_->data()->setCell(j, i, j > i ? std::nan("") : w);  // j > i: masked, transparent
      if (j <= i) largest = std::max(largest, w);
    }
  }
  setHeatmapColorRange({map_, scale_}, largest, logColor_->isChecked());
  plot_->rescaleAxes();
  plot_->replot();
}

}  // namespace poslab::ui
