#include "training/lag_response_view.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QStringList>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "analysis/target_label.h"
#include "bridge/catalog.h"
#include "export/plot_export.h"
#include "family_names.h"
#include "math/formula_unicode.h"
#include "plot_style.h"
#include "tasks/task_info.h"

namespace poslab::ui {

namespace {
// As `poslab-cli response` prints its numbers: three significant digits, "-" when undefined.
QString number(double v) {
  return std::isfinite(v) ? QString::number(v, 'g', 3) : QStringLiteral("-");
}

// A range symmetric about 0 that holds every value: the two axes' zeros line up, so the learned
// response and the kernel can be compared by shape and sign.
QCPRange symmetricRange(const std::vector<double>& values) {
  double largest = 0;
  for (double v : values)
    if (std::isfinite(v)) largest = std::max(largest, std::abs(v));
  if (!(largest > 0)) largest = 1;
  return QCPRange(-1.1 * largest, 1.1 * largest);
}

// The tasks with a learned kernel to measure (TaskCapabilities::lagResponse), joined by `word`:
// "kernel-lm and sector-teacher".
QString lagResponseTasks(const QString& word) {
  QStringList ids;
  for (const poslab::TaskInfo* t : poslab::allTasks())
    if (t->capabilities.lagResponse) ids << QString::fromStdString(t->id);
  if (ids.size() < 2) return ids.join(QString());
  const QString last = ids.takeLast();
  return ids.join(QStringLiteral(", ")) + ' ' + word + ' ' + last;
}
}  // namespace

bool LagResponseView::hasLagResponse(const std::string& taskId) {
  const poslab::TaskInfo* info = poslab::findTaskInfo(taskId);
  return info && info->capabilities.lagResponse;
}

LagResponseView::LagResponseView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  run_ = new QComboBox(this);
  run_->setObjectName("lagResponseRun");
  length_ = new QComboBox(this);
  length_->setObjectName("lagResponseLength");
  length_->setToolTip(
      tr("T of the probe sequences: an evaluation length or 8x the training length"));
  measure_ = new QPushButton(tr("Measure"), this);
  measure_->setObjectName("lagResponseMeasure");
  measure_->setToolTip(tr("Flip each probed bit of %1 sequences and measure how the answer's "
                          "margin logit(1) - logit(0) moves (takes seconds at long lengths)")
                           .arg(kSamples));
  row->addWidget(new QLabel(tr("run"), this));
  row->addWidget(run_);
  row->addWidget(new QLabel(tr("T"), this));
  row->addWidget(length_);
  row->addWidget(measure_);
  row->addStretch(1);
  layout->addLayout(row);
  info_ = new QLabel(this);
  info_->setObjectName("lagResponseInfo");
  info_->setWordWrap(true);
  info_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);  // on top without a plot
  info_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(info_);

  plot_ = new QCustomPlot(this);
  plot_->setObjectName("lagResponsePlot");
  stylePlot(plot_, tr("lag d (bit d tokens before the QUERY)"), tr("learned response (logits)"));
  placeLegendTop(plot_);
  plot_->yAxis2->setVisible(true);
  plot_->yAxis2->setTickLabels(true);
  plot_->yAxis2->setLabel(tr("task kernel K(d)"));
  plot_->yAxis->setLabelColor(seriesColor(0));
  plot_->yAxis2->setLabelColor(seriesColor(1));
  // Drag and zoom move the lags; each y axis keeps the scale that lines up the zeros.
  plot_->axisRect()->setRangeDrag(Qt::Horizontal);
  plot_->axisRect()->setRangeZoom(Qt::Horizontal);
  response_ = plot_->addGraph(plot_->xAxis, plot_->yAxis);
  response_->setName(tr("learned response (left axis)"));
  response_->setPen(QPen(seriesColor(0), 2));
  response_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
  target_ = plot_->addGraph(plot_->xAxis, plot_->yAxis2);
  target_->setName(tr("task kernel K(d) (right axis)"));
  // The legend adds K(d)'s formula; the CSV column keeps this name (export/plot_export.h).
  target_->setProperty(kCsvKeyProperty, target_->name());
  target_->setPen(QPen(seriesColor(1), 1.5));
  trainLine_ = new QCPItemStraightLine(plot_);
  trainLine_->setPen(QPen(QColor(90, 90, 90), 1.2, Qt::DashLine));
  trainLine_->setVisible(false);
  trainLabel_ = new QCPItemText(plot_);
  trainLabel_->position->setTypeX(QCPItemPosition::ptPlotCoords);
  trainLabel_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  trainLabel_->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
  trainLabel_->setColor(QColor(90, 90, 90));
  trainLabel_->setPadding(QMargins(4, 2, 4, 2));
  trainLabel_->setVisible(false);
  layout->addWidget(plot_, 1);
  layout->addStretch(0);  // takes the space (the message stays on top) while the plot is hidden

  connect(run_, &QComboBox::currentIndexChanged, this, [this] { onRunChanged(); });
  connect(length_, &QComboBox::currentIndexChanged, this, [this] {
    if (length() >= 2) plot_->xAxis->setRange(0, static_cast<double>(length()));
    clearPlot();
    if (measurable())
      info_->setText(tr("press Measure: the lag response at T = %1 appears here").arg(length()));
  });
  connect(measure_, &QPushButton::clicked, this, [this] { Q_EMIT measureRequested(); });
  onRunChanged();
}

void LagResponseView::setRuns(const std::vector<poslab::TrainConfig>& configs) {
  configs_ = configs;
  {
    const QSignalBlocker block(run_);
    const int keep = run_->currentIndex();
    run_->clear();
    for (const auto& c : configs) {
      run_->addItem(familyShortName(c.model.family));
      run_->setItemData(run_->count() - 1, familyToolTip(c.model.family), Qt::ToolTipRole);
    }
    if (keep >= 0 && keep < run_->count()) run_->setCurrentIndex(keep);
  }
  onRunChanged();
}

int LagResponseView::run() const {
  return run_->currentIndex();
}

long long LagResponseView::length() const {
  return length_->currentIndex() < 0 ? -1 : length_->currentData().toLongLong();
}

bool LagResponseView::measurable() const {
  const int i = run();
  return i >= 0 && i < static_cast<int>(configs_.size()) &&
         hasLagResponse(configs_[static_cast<size_t>(i)].task.id);
}

QString LagResponseView::infoText() const {
  return info_->text();
}

void LagResponseView::onRunChanged() {
  const int i = run();
  std::vector<long long> lengths;
  if (measurable()) {
    const poslab::TrainConfig& c = configs_[static_cast<size_t>(i)];
    lengths = c.run.evalLengths;
    lengths.push_back(8 * c.task.trainLength);
    // Lengths the task generates (the probe refuses others); at least 2: a lag to flip.
    poslab::TaskConfig task = c.task;
    task.headDim = c.model.headDim();  // as the run builds it (kernel-lm's omega)
    const auto [shortest, longest] = taskLengthRange(task);
    lengths.erase(std::remove_if(lengths.begin(), lengths.end(),
                                 [lo = shortest, hi = longest](long long l) {
                                   return l < std::max(2LL, lo) || l > hi;
                                 }),
                  lengths.end());
    std::sort(lengths.begin(), lengths.end());
    lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  }
  {
    const QSignalBlocker block(length_);
    const long long keep = length();
    length_->clear();
    for (long long l : lengths) length_->addItem(QString::number(l), QVariant::fromValue(l));
    const int at = length_->findData(QVariant::fromValue(keep));
    length_->setCurrentIndex(at >= 0 ? at : length_->count() - 1);  // default: the longest
  }
  // The task's kernel by its formula (kernel-lm's lag kernel, sector-teacher's teacher).
  const std::string kernel = measurable() ? configs_[static_cast<size_t>(i)].task.kernel : "";
  const std::string label = taskKernelLabel(kernel);
  target_->setName(kernel.empty() || label == kernel
                       ? tr("task kernel K(d) (right axis)")
                       : tr("task kernel K(d) = %1 (right axis)")
                             .arg(formulaToUnicode(QString::fromStdString(label))));
  const bool can = measurable() && length() >= 2;
  plot_->setVisible(can);  // nothing to draw for other tasks: the message says why
  if (can) plot_->xAxis->setRange(0, static_cast<double>(length()));
  clearPlot();
  measure_->setEnabled(can);
  length_->setEnabled(can);
  if (i < 0)
    info_->setText(
        tr("start or load a %1 run, then press Measure").arg(lagResponseTasks(tr("or"))));
  else if (!measurable())
    info_->setText(tr("The learned kernel is measured for %1 runs; this run's task is %2.")
                       .arg(lagResponseTasks(tr("and")),
                            QString::fromStdString(configs_[static_cast<size_t>(i)].task.id)));
  else
    info_->setText(tr("press Measure: the lag response at T = %1 appears here").arg(length()));
}

void LagResponseView::clearPlot() {
  last_ = TrainingLagResponse{};
  response_->data()->clear();
  target_->data()->clear();
  trainLine_->setVisible(false);
  trainLabel_->setVisible(false);
  plot_->replot();
}

void LagResponseView::setMeasuring() {
  info_->setText(tr("measuring %1 at T = %2 (%3 sequences, one bit flipped at a time)...")
                     .arg(run_->currentText())
                     .arg(length())
                     .arg(kSamples));
}

void LagResponseView::showResponse(const TrainingLagResponse& r) {
  if (!r.error.isEmpty()) {
    clearPlot();
    info_->setText(tr("no lag response: %1").arg(r.error));
    return;
  }
  last_ = r;
  const poslab::LagResponse& lr = r.response;
  QVector<double> lags, response, target;
  for (size_t k = 0; k < lr.lags.size(); ++k) {
    lags.push_back(static_cast<double>(lr.lags[k]));
    response.push_back(lr.response[k]);
    target.push_back(lr.target[k]);
  }
  response_->setData(lags, response, true);
  target_->setData(lags, target, true);
  plot_->xAxis->setRange(0, static_cast<double>(lr.length));
  plot_->yAxis->setRange(symmetricRange(lr.response));
  plot_->yAxis2->setRange(symmetricRange(lr.target));
  const double t = static_cast<double>(lr.trainLength);
  trainLine_->point1->setCoords(t, 0);
  trainLine_->point2->setCoords(t, 1);
  trainLine_->setVisible(lr.trainLength > 0 && lr.trainLength < lr.length);
  trainLabel_->position->setCoords(t, 0.0);
  trainLabel_->setText(tr("training length %1").arg(lr.trainLength));
  trainLabel_->setVisible(trainLine_->visible());
  plot_->replot();

  const long long T = lr.trainLength, L = lr.length;
  QString text =
      tr("%1 at step %2: T = %3 (trained at %4), %5 samples, %6 lags. Cosine with the task's "
         "kernel over all lags 1..%7: %8 (a linear readout with this kernel would label %9 of "
         "length-%3 sequences correctly); over the trained lags 1..%10: %11")
          .arg(run_->currentText())
          .arg(r.step)
          .arg(L)
          .arg(T)
          .arg(lr.samples)
          .arg(lr.lags.size())
          .arg(L - 1)
          .arg(number(r.summary.cosineAll), number(r.summary.impliedAccuracy))
          .arg(T - 1)
          .arg(number(r.summary.cosineTrained));
  if (L > T)
    text += tr("; over the lags beyond, %1..%2: %3")
                .arg(T)
                .arg(L - 1)
                .arg(number(r.summary.cosineBeyond));
  info_->setText(text + '.');
}

}  // namespace poslab::ui
