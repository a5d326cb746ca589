#include "explorer/diagnostics_view.h"

#include <cmath>

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "analysis/target_label.h"
#include "bridge/catalog.h"
#include "export/plot_export.h"
#include "math/formula_markup.h"
#include "math/formula_unicode.h"
#include "plot_style.h"

namespace poslab::ui {

namespace {
constexpr double kBarWidth = 0.26;  // three bars per tick, in key units

// Plot text (legends, axes, ticks) from the formula markup: FJ_{2} -> FJ₂.
QString u(const QString& markup) {
  return formulaToUnicode(markup);
}
// Label text (the summary line) from the formula markup: g_{FJ} typeset with <sub>.
QString html(const QString& markup) {
  return formulaToHtml(*parseFormula(markup));
}
}  // namespace

DiagnosticsView::DiagnosticsView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* controls = new QHBoxLayout;
  target_ = new QComboBox(this);
  target_->setObjectName("diagnosticsTarget");
  for (const auto& name : targets()) target_->addItem(QString::fromStdString(name));
  summary_ = new QLabel(this);
  summary_->setObjectName("diagnosticsSummary");
  summary_->setWordWrap(true);
  summary_->setTextFormat(Qt::RichText);  // the gates' symbols are typeset
  controls->addWidget(new QLabel(tr("target"), this));
  controls->addWidget(target_);
  controls->addWidget(summary_, 1);
  layout->addLayout(controls);

  plot_ = new QCustomPlot(this);
  plot_->setObjectName("diagnosticsPlot");
  stylePlot(plot_, sectorAxisLabel(false), u(tr("mass share M/ΣM, energy E")));
  plot_->setInteractions({});
  plot_->yAxis2->setVisible(true);
  plot_->yAxis2->setLabel(tr("leave-one-out ΔMSE"));
  auto* group = new QCPBarsGroup(plot_);
  // The legend reads as mathematics; the CSV export keeps its column names (export/plot_export.h).
  auto makeBars = [&](QCPAxis* valueAxis, const QString& name, const QString& key, int color) {
    auto* b = new QCPBars(plot_->xAxis, valueAxis);
    b->setName(name);
    b->setProperty(kCsvKeyProperty, key);
    b->setWidth(kBarWidth);
    b->setPen(Qt::NoPen);
    b->setBrush(seriesColor(color));
    b->setBarsGroup(group);
    return b;
  };
  bars_.massShare =
      makeBars(plot_->yAxis, u(tr("mass share M(S, r)/ΣM")), QStringLiteral("mass share"), 0);
  bars_.energy =
      makeBars(plot_->yAxis, u(tr("energy E = ‖C‖/‖ΣC‖")), QStringLiteral("energy ‖C‖/‖ΣC‖"), 1);
  bars_.loo = makeBars(plot_->yAxis2, tr("LOO ΔMSE (right axis)"),
                       QStringLiteral("LOO ΔMSE (right axis)"), 2);
  plot_->legend->setVisible(true);
  plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  layout->addWidget(plot_, 1);

  connect(target_, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT settingsChanged(); });
}

QString DiagnosticsView::sectorAxisLabel(bool adaptive) {
  return adaptive ? u(tr("jet order r (FJ_r and LC_r summed)"))
                  : u(tr("sector and jet order r: FJ_r, affine, LC_r"));
}

std::vector<std::string> DiagnosticsView::targets() {
  return diagnosticsTargetNames();
}

QString DiagnosticsView::summaryText() const {
  return summary_->text();
}

DiagnosticsSettings DiagnosticsView::settings() const {
  DiagnosticsSettings s;
  s.target = target_->currentText().toStdString();
  return s;
}

void DiagnosticsView::setSettings(const DiagnosticsSettings& s) {
  const int index = target_->findText(QString::fromStdString(s.target));
  if (index >= 0) target_->setCurrentIndex(index);
}

void DiagnosticsView::fillRequest(ExplorerRequest& request) const {
  request.diagnostics = settings();
}

void DiagnosticsView::showResult(const ExplorerResult& result) {
  const DiagnosticsResult& d = result.diagnostics;
  QVector<double> keys, share, energy, loo;
  auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
  for (size_t i = 0; i < d.rows.size(); ++i) {
    const auto& r = d.rows[i];
    const double key = static_cast<double>(i + 1);
    keys.push_back(key);
    share.push_back(std::isnan(r.massShare) ? 0.0 : r.massShare);  // affine: no share, no bar
    energy.push_back(r.energy);
    loo.push_back(r.loo);
    // The component as the kernel view's legend names it (encodings/basis_label.h): FJ₂, LC₀.
    const QString sector = QString::fromStdString(r.sector);
    ticker->addTick(key, r.sector == "affine" ? sector
                         : d.adaptive         ? QStringLiteral("r = %1").arg(r.order)
                                      : u(QStringLiteral("%1_{%2}").arg(sector).arg(r.order)));
  }
  plot_->xAxis->setTicker(ticker);
  plot_->xAxis->setTickLabelRotation(-30);
  bars_.massShare->setData(keys, share, true);
  bars_.energy->setData(keys, energy, true);
  bars_.loo->setData(keys, loo, true);
  plot_->xAxis->setRange(0.3, static_cast<double>(d.rows.size()) + 0.7);
  plot_->yAxis->rescale();
  plot_->yAxis2->rescale();
  // Bars start at 0; keep 0 inside both value ranges and leave headroom for the legend.
  for (QCPAxis* axis : {plot_->yAxis, plot_->yAxis2}) {
    QCPRange r = axis->range();
    r.lower = std::min(r.lower, 0.0);
    r.upper = std::max(r.upper, 0.0);
    r.upper += 0.35 * (r.upper - r.lower);
    axis->setRange(r);
  }
  // The target by name and kernel: "damped_mixed, K(d) = e^{−γd} (…)", typeset.
  const QString target = QString::fromStdString(d.target).toHtmlEscaped() +
                         ", K(d) = " + html(QString::fromStdString(taskKernelLabel(d.target)));
  if (d.adaptive) {
    plot_->xAxis->setLabel(sectorAxisLabel(true));
    // Rich text: the target and the gates typeset; "d &lt; %2" is the plain "d < L".
    const QString text = tr("Adaptive PJ kernel trained on %1 (d &lt; %2, ω = %3): train MSE %4 "
                            "(R² %5), extrapolation to %6: MSE %7 (R² %8); gates")
                             .arg(target)
                             .arg(d.trainLength)
                             .arg(d.omega, 0, 'g', 4)
                             .arg(d.trainMse, 0, 'g', 3)
                             .arg(d.trainR2, 0, 'f', 4)
                             .arg(d.evalLength)
                             .arg(d.kernelMse, 0, 'g', 3)
                             .arg(d.evalR2, 0, 'f', 4);
    summary_->setText(text + " " + html(QStringLiteral("g_{FJ}/g_{aff}/g_{LC}")) +
                      QStringLiteral(" = %1/%2/%3")
                          .arg(d.gates[0], 0, 'f', 2)
                          .arg(d.gates[1], 0, 'f', 2)
                          .arg(d.gates[2], 0, 'f', 2));
  } else {
    plot_->xAxis->setLabel(sectorAxisLabel(false));
    summary_->setText(tr("PJ-bias head fitted to %1 at ω = %2 rad/position: fit MSE %3")
                          .arg(target)
                          .arg(d.omega, 0, 'g', 4)
                          .arg(d.kernelMse, 0, 'g', 4));
  }
  plot_->replot();
}

}  // namespace poslab::ui
