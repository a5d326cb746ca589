#include "explorer/kernel_view.h"

#include <algorithm>

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QSignalBlocker>
#include <QToolButton>
#include <QVBoxLayout>

#include "bridge/catalog.h"
#include "bridge/loaded_families.h"
#include "encodings/basis_label.h"
#include "export/plot_export.h"
#include "family_names.h"
#include "lessons/window_state_check.h"
#include "math/formula_unicode.h"
#include "plot_style.h"

namespace poslab::ui {

namespace {
// Overlay pens: dark, saturated, apart from the thin Tableau basis curves and the black kernel.
QColor overlayColor(size_t index) {
  static const QColor colors[kMaxKernelOverlays] = {QColor(200, 0, 90), QColor(0, 120, 110),
                                                    QColor(90, 60, 200)};
  return colors[index % kMaxKernelOverlays];
}
QString q(const std::string& s) {
  return QString::fromStdString(s);
}
}  // namespace

KernelView::KernelView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* controls = new QHBoxLayout;
  lagCount_ = new QComboBox(this);
  lagCount_->setObjectName("lagCount");
  for (long long n : lagCounts()) lagCount_->addItem(QString::number(n), static_cast<int>(n));
  lagCount_->setCurrentText("256");
  logLag_ = new QCheckBox(tr("log lag axis"), this);
  logLag_->setObjectName("logLag");
  controls->addWidget(new QLabel(tr("lags"), this));
  controls->addWidget(lagCount_);
  controls->addWidget(logLag_);
  basisAxis_ = new QCheckBox(tr("basis on its own axis"), this);
  basisAxis_->setObjectName("basisOwnAxis");
  basisAxis_->setToolTip(
      tr("Draw the basis functions against the right-hand axis, so that the kernel K(d) keeps the "
         "left one and stays readable when the basis is much larger"));
  controls->addWidget(basisAxis_);
  overlayButton_ = new QToolButton(this);
  overlayButton_->setObjectName("kernelOverlay");
  overlayButton_->setPopupMode(QToolButton::InstantPopup);
  overlayButton_->setToolTip(
      tr("Draw the kernel K(d) of up to %1 other families over this one, dashed. Each takes this "
         "panel's value of every parameter it shares (γ, ω, …) and its own defaults for "
         "the rest.")
          .arg(kMaxKernelOverlays));
  auto* menu = new QMenu(overlayButton_);
  menu->setObjectName("kernelOverlayMenu");
  menu->setToolTipsVisible(true);  // a loaded family's full path
  for (const FamilyDescription& f : familyCatalog()) addOverlayAction(menu, f, nullptr);
  QAction* loadedEnd = menu->addSeparator();  // families loaded from files go above it
  for (const std::string& id : loadedFamilies().ids())
    addOverlayAction(menu, *findFamily(id), loadedEnd);
  connect(&loadedFamilies(), &LoadedFamilies::familyAdded, this,
          [this, menu, loadedEnd](const QString& id) {
            if (const FamilyDescription* f = findFamily(id.toStdString()))
              addOverlayAction(menu, *f, loadedEnd);
          });
  QAction* clear = menu->addAction(tr("Clear overlays"));
  clear->setObjectName("kernelOverlayClear");
  connect(clear, &QAction::triggered, this, [this] { setOverlay({}); });
  overlayButton_->setMenu(menu);
  controls->addWidget(overlayButton_);
  controls->addStretch(1);
  layout->addLayout(controls);
  status_ = new QLabel(this);
  status_->setObjectName("kernelOverlayStatus");
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  status_->setVisible(false);
  layout->addWidget(status_);
  plot_ = new QCustomPlot(this);
  plot_->setObjectName("kernelPlot");
  stylePlot(plot_, tr("lag d = i − j (positions)"), tr("basis function / kernel K(d)"));
  placeLegendRight(plot_);
  layout->addWidget(plot_, 1);
  connect(lagCount_, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT settingsChanged(); });
  connect(logLag_, &QCheckBox::toggled, this, [this] { Q_EMIT settingsChanged(); });
  connect(basisAxis_, &QCheckBox::toggled, this, [this] { Q_EMIT settingsChanged(); });
  syncOverlayMenu();
}

void KernelView::addOverlayAction(QMenu* menu, const FamilyDescription& f, QAction* before) {
  // A loaded family by its file name, its full path in the tool tip.
  const QString text = (f.isLoaded() ? QFileInfo(q(f.path)).fileName() : q(f.id)) +
                       QStringLiteral("  —  ") + q(f.title);
  if (overlayActions_.count(f.id)) {  // a file loaded again: its title may have changed
    overlayActions_.at(f.id)->setText(text);
    if (f.isLoaded()) overlayActions_.at(f.id)->setToolTip(familyToolTip(f.id));
    return;
  }
  auto* a = new QAction(text, menu);
  if (f.isLoaded()) a->setToolTip(familyToolTip(f.id));
  menu->insertAction(before, a);  // before == nullptr: appended
  a->setCheckable(true);
  a->setData(q(f.id));
  overlayActions_[f.id] = a;
  connect(a, &QAction::toggled, this, [this, id = f.id](bool on) {
    std::vector<std::string> next = overlay_;
    auto it = std::find(next.begin(), next.end(), id);
    if (on && it == next.end()) next.push_back(id);
    if (!on && it != next.end()) next.erase(it);
    setOverlay(next);
  });
}

void KernelView::setOverlay(const std::vector<std::string>& families) {
  std::vector<std::string> next;
  for (const std::string& f : families)
    if (overlayActions_.count(f) && std::find(next.begin(), next.end(), f) == next.end() &&
        next.size() < static_cast<size_t>(kMaxKernelOverlays))
      next.push_back(f);
  if (next == overlay_) {
    syncOverlayMenu();  // a refused toggle (a 4th family) is unchecked again
    return;
  }
  overlay_ = next;
  syncOverlayMenu();
  Q_EMIT settingsChanged();
}

void KernelView::syncOverlayMenu() {
  const bool full = overlay_.size() >= static_cast<size_t>(kMaxKernelOverlays);
  for (auto& [id, a] : overlayActions_) {
    const bool on = std::find(overlay_.begin(), overlay_.end(), id) != overlay_.end();
    QSignalBlocker block(a);
    a->setChecked(on);
    a->setEnabled(on || !full);  // at most kMaxKernelOverlays: the rest wait until one is removed
  }
  overlayButton_->setText(overlay_.empty() ? tr("overlay")
                                           : tr("overlay (%1)").arg(overlay_.size()));
}

QString KernelView::overlayStatus() const {
  return status_->text();
}

QCPGraph* KernelView::overlayGraph(const QString& family) const {
  auto it = graphs_.overlays.find(family);
  return it == graphs_.overlays.end() ? nullptr : it->second;
}

std::vector<long long> KernelView::lagCounts() {
  return kernelViewLagCounts();  // core's, which a lesson's state is checked against
}

KernelSettings KernelView::settings() const {
  KernelSettings s;
  s.lagCount = lagCount_->currentData().toLongLong();
  s.logLag = logLag_->isChecked();
  s.basisOwnAxis = basisAxis_->isChecked();
  s.overlay = overlay_;
  return s;
}

void KernelView::setSettings(const KernelSettings& s) {
  const int index = lagCount_->findData(static_cast<int>(s.lagCount));
  if (index >= 0) lagCount_->setCurrentIndex(index);
  logLag_->setChecked(s.logLag);
  basisAxis_->setChecked(s.basisOwnAxis);
  setOverlay(s.overlay);
}

void KernelView::fillRequest(ExplorerRequest& request) const {
  request.kernel = settings();
}

QCPGraph* KernelView::basisGraph(const QString& name) const {
  auto it = graphs_.basis.find(name);
  return it == graphs_.basis.end() ? nullptr : it->second;
}

void KernelView::showResult(const ExplorerResult& result) {
  const LagBasis& b = result.kernel;
  plot_->clearGraphs();
  graphs_ = Graphs{};
  const bool ownAxis = basisAxis_->isChecked() && !b.columns.empty() && !b.kernel.empty();
  QCPAxis* basisAxis = ownAxis ? plot_->yAxis2 : plot_->yAxis;
  const QVector<double> lags(b.lags.begin(), b.lags.end());
  for (size_t n = 0; n < b.columns.size(); ++n) {
    const QString name = QString::fromStdString(b.names[n]);
    QCPGraph* g = plot_->addGraph(plot_->xAxis, basisAxis);
    // The legend reads as mathematics; the CSV export keeps the stable key (export/plot_export.h).
    g->setName(formulaToUnicode(QString::fromStdString(basisLabel(b.names[n]))));
    g->setProperty(kCsvKeyProperty, name);
    g->setPen(QPen(seriesColor(static_cast<int>(n)), 1.2));
    g->setData(lags, QVector<double>(b.columns[n].begin(), b.columns[n].end()), true);
    graphs_.basis[name] = g;
  }
  if (!b.kernel.empty()) {
    graphs_.kernel = plot_->addGraph();
    graphs_.kernel->setName(tr("kernel K(d)"));
    graphs_.kernel->setPen(QPen(Qt::black, 3));
    graphs_.kernel->setData(lags, QVector<double>(b.kernel.begin(), b.kernel.end()), true);
  }
  for (size_t n = 0; n < result.overlays.size(); ++n) {
    const KernelOverlay& o = result.overlays[n];
    if (o.kernel.size() != b.lags.size()) continue;
    QCPGraph* g = plot_->addGraph();
    g->setName(tr("%1 (overlay)").arg(familyShortName(o.family)));
    // The colour follows the family's place in the choice, so it stays put as gamma moves.
    const auto pos = std::find(overlay_.begin(), overlay_.end(), o.family) - overlay_.begin();
    QPen pen(overlayColor(static_cast<size_t>(pos)), 2.2, Qt::DashLine);
    g->setPen(pen);
    g->setData(lags, QVector<double>(o.kernel.begin(), o.kernel.end()), true);
    graphs_.overlays[q(o.family)] = g;
  }
  QStringList notes;
  for (const std::string& n : result.overlayNotes) notes << q(n);
  status_->setText(notes.join('\n'));
  status_->setVisible(!notes.isEmpty());
  setLogAxis(plot_->xAxis, logLag_->isChecked());
  // A family with a kernel and no basis functions (one loaded from a file) plots the kernel only.
  const bool kernelOnly = b.columns.empty() && !b.kernel.empty();
  plot_->yAxis->setLabel(ownAxis || kernelOnly ? tr("kernel K(d)")
                                               : tr("basis function / kernel K(d)"));
  plot_->yAxis2->setVisible(ownAxis);
  plot_->yAxis2->setLabel(ownAxis ? tr("basis function") : QString());
  plot_->rescaleAxes();
  plot_->yAxis->scaleRange(1.08);  // a margin so curves at the extremes stay visible
  if (ownAxis) plot_->yAxis2->scaleRange(1.08);
  plot_->replot();
}

}  // namespace poslab::ui
