// The explorer window, offscreen: every view plots for a couple of families; moving a parameter
// changes the plotted data as the family's formula says; an invalid combination shows an error
// and leaves the previous plot alone.
#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableWidget>
#include <QtTest>

#include <memory>

#include <cmath>

#include "app_shell.h"
#include "bridge/explorer_compute.h"
#include "error_report.h"
#include "explorer/attention_view.h"
#include "explorer/diagnostics_view.h"
#include "explorer/explorer_controller.h"
#include "explorer/kernel_view.h"
#include "explorer/norms_view.h"
#include "explorer/parameter_panel.h"
#include "explorer/probe_view.h"
#include "explorer_settle.h"
#include "export/plot_export.h"
#include "main_window.h"
#include "session/session_state.h"

using namespace poslab::ui;

namespace {
constexpr int kWaitMs = 60000;  // generous: the CI machine may be busy compiling

// The value a graph plots at exactly `key`; NaN when it has no such point.
double valueAt(const QCPGraph* g, double key) {
  auto it = g->data()->findBegin(key, false);
  if (it == g->data()->constEnd() || it->key != key) return std::nan("");
  return it->value;
}

// Every text a plot shows a reader: axis titles (colour scales too), legend names, text ticks.
QString plotText(QCustomPlot* plot) {
  QStringList out;
  for (QCPAxisRect* rect : plot->axisRects())
    for (QCPAxis* axis : rect->axes()) {
      out << axis->label();
      if (auto ticker = axis->ticker().dynamicCast<QCPAxisTickerText>())
        for (const QString& t : ticker->ticks()) out << t;
    }
  for (QCPLayoutElement* e : plot->plotLayout()->elements(true))
    if (auto* scale = qobject_cast<QCPColorScale*>(e)) out << scale->axis()->label();
  for (int i = 0; i < plot->plottableCount(); ++i) out << plot->plottable(i)->name();
  return out.join('\n');
}

// What plot text must not show: a basis or parameter name as code writes it, or formula markup
// that was not turned into Unicode (x_{b}, e^{…}, \frac, log10).
const QRegularExpression kRawIdentifier(
    QStringLiteral("\\*exp|\\*cos|\\*sin|gamma|omega|kappa|\\btau\\b|\\bphi|\\bbeta|_\\{|\\^\\{|"
                   "\\\\frac|log10|softmax_"));
}  // namespace

class TestExplorer : public QObject {
  Q_OBJECT

  std::unique_ptr<AppShell> shell_;
  MainWindow* window_ = nullptr;

  // Waits until the view shows the current parameters (or reported an error for them).
  void settle(ExplorerView view) { test::settleExplorer(shell_->explorer(), view, kWaitMs); }
  void select(const char* family, WindowView view) {
    QVERIFY(window_->parameters()->setFamily(family));
    window_->showView(view);
  }

 private Q_SLOTS:
  void init() {
    shell_ = std::make_unique<AppShell>();
    window_ = &shell_->window();
    window_->show();
  }
  void cleanup() {
    shell_.reset();
    window_ = nullptr;
  }

  void kernelViewPlotsBasisAndKernel_data() {
    QTest::addColumn<QString>("family");
    QTest::addColumn<QString>("basisName");
    QTest::newRow("jordan-exact") << "jordan-exact"
                                  << "d*exp*cos";
    QTest::newRow("rope") << "rope"
                          << "cos_0";
    QTest::newRow("alibi") << "alibi"
                           << "bias_h1";
  }
  void kernelViewPlotsBasisAndKernel() {
    QFETCH(QString, family);
    QFETCH(QString, basisName);
    select(family.toUtf8().constData(), WindowView::Kernel);
    settle(ExplorerView::Kernel);
    KernelView* v = window_->kernelView();
    QVERIFY(shell_->explorer()->lastError().isEmpty());
    QVERIFY(v->kernelGraph());
    QCOMPARE(v->kernelGraph()->dataCount(), 256);  // the default lag count
    QVERIFY(v->basisGraph(basisName));
    QCOMPARE(v->basisGraph(basisName)->dataCount(), 256);
  }

  // Issue #4's "done means": the window opens on a family with gamma; moving gamma changes the
  // kernel as the formula says (exp*cos basis = e^(-gamma d) cos(omega d)) and redraws the map and
  // the norms with different data.
  void newUserMovesGammaAndKernelMapAndNormsChange() {
    QCOMPARE(window_->parameters()->familyId(), std::string(ParameterPanel::kDefaultFamily));
    auto* gamma = window_->parameters()->findChild<QDoubleSpinBox*>("param_gamma");
    QVERIFY(gamma);
    window_->showView(WindowView::Attention);
    settle(ExplorerView::Attention);
    const double cellBefore = window_->attentionView()->colorMap()->data()->cell(0, 100);
    window_->showView(WindowView::Norms);
    settle(ExplorerView::Norms);
    const auto& norms = window_->normsView()->graphs();
    const double keyBefore = (norms.key->data()->constEnd() - 1)->value;

    gamma->setValue(0.02);
    window_->showView(WindowView::Kernel);
    settle(ExplorerView::Kernel);
    const double omega = window_->parameters()->values().at("omega");
    const QCPGraph* g = window_->kernelView()->basisGraph("exp*cos");
    QVERIFY(g);
    QVERIFY(std::abs(valueAt(g, 30) - std::exp(-0.02 * 30) * std::cos(omega * 30)) < 1e-9);
    window_->showView(WindowView::Attention);
    settle(ExplorerView::Attention);
    QVERIFY(window_->attentionView()->colorMap()->data()->cell(0, 100) != cellBefore);
    window_->showView(WindowView::Norms);
    settle(ExplorerView::Norms);
    QVERIFY((norms.key->data()->constEnd() - 1)->value != keyBefore);
  }

  // Damped RoPE (MATH 1.5): the exp*cos basis function is e^(-gamma d) cos(omega d).
  void dampedRopeGammaChangesBasisAsFormulaSays() {
    select("damped-rope", WindowView::Kernel);
    settle(ExplorerView::Kernel);
    auto* gamma = window_->parameters()->findChild<QDoubleSpinBox*>("param_gamma");
    QVERIFY(gamma);
    gamma->setValue(0.05);  // as a user typing 0.05 and pressing Enter
    settle(ExplorerView::Kernel);
    const double omega = window_->parameters()->values().at("omega");
    const QCPGraph* g = window_->kernelView()->basisGraph("exp*cos");
    QVERIFY(g);
    const double expected = std::exp(-0.05 * 20) * std::cos(omega * 20);
    QVERIFY(std::abs(valueAt(g, 20) - expected) < 1e-9);
  }

  // Moving the slider reaches the same value path (log slider for gamma: its left end is 0).
  void gammaSliderLeftEndIsZeroDecay() {
    select("damped-rope", WindowView::Kernel);
    auto* slider = window_->parameters()->findChild<QSlider*>("slider_gamma");
    QVERIFY(slider);
    slider->setValue(0);
    QCOMPARE(window_->parameters()->values().at("gamma"), 0.0);
    settle(ExplorerView::Kernel);
    const double omega = window_->parameters()->values().at("omega");
    const QCPGraph* g = window_->kernelView()->basisGraph("exp*cos");
    QVERIFY(std::abs(valueAt(g, 100) - std::cos(omega * 100)) < 1e-12);
  }

  // Issue #16 section 3: with "basis on its own axis" the basis functions move to the right-hand
  // axis and the left one is scaled to K(d) alone, so a small kernel under a large basis (the
  // Jordan shear grows with d) stays readable; the setting survives a session round trip.
  void basisOnItsOwnAxisKeepsTheKernelReadable() {
    select("jordan-exact", WindowView::Kernel);
    settle(ExplorerView::Kernel);
    KernelView* v = window_->kernelView();
    auto* box = v->findChild<QCheckBox*>("basisOwnAxis");
    QVERIFY(box);
    QCOMPARE(v->basisGraph("d*exp*cos")->valueAxis(), v->plot()->yAxis);
    box->setChecked(true);
    settle(ExplorerView::Kernel);
    QCOMPARE(v->basisGraph("d*exp*cos")->valueAxis(), v->plot()->yAxis2);
    QCOMPARE(v->kernelGraph()->valueAxis(), v->plot()->yAxis);
    QVERIFY(v->plot()->yAxis2->visible());
    bool found = false;
    const QCPRange k = v->kernelGraph()->getValueRange(found);
    QVERIFY(found);
    const QCPRange shown = v->plot()->yAxis->range();
    QVERIFY(shown.upper <= 1.2 * k.upper + 1e-9 && shown.lower >= 1.2 * k.lower - 1e-9);
    const QCPRange basis = v->basisGraph("d*exp*cos")->getValueRange(found);
    QVERIFY2(basis.upper > 2 * k.upper, "the case this option exists for: a larger basis");
    QVERIFY(v->settings().basisOwnAxis);
    KernelSettings s = v->settings();
    s.basisOwnAxis = false;
    v->setSettings(s);
    QVERIFY(!box->isChecked());
  }

  // Issue #16 section 3: controls are labelled with symbols, switches are check boxes, and a
  // parameter without effect (base while pin ω is on) is disabled with the reason under it;
  // switching pin ω off enables it again, and the kernel follows the check box.
  void parametersShowSymbolsSwitchesAndWhyTheyAreOff() {
    select("jordan-exact", WindowView::Kernel);
    ParameterPanel* p = window_->parameters();
    auto* gammaLabel = p->findChild<QLabel*>("label_gamma");
    QVERIFY(gammaLabel);
    QCOMPARE(gammaLabel->text(), QStringLiteral("γ"));
    QVERIFY(gammaLabel->toolTip().contains("gamma"));
    QVERIFY(gammaLabel->toolTip().contains("range [0, 10]"));
    auto* pin = p->findChild<QCheckBox*>("param_pin_omega");
    QVERIFY2(pin, "pin_omega is an on/off switch: a check box");
    QVERIFY(!pin->isChecked());
    auto* base = p->findChild<QDoubleSpinBox*>("param_base");
    auto* reason = p->findChild<QLabel*>("reason_base");
    QVERIFY(base && reason);
    QVERIFY(base->isEnabled());
    QVERIFY(reason->isHidden());
    pin->setChecked(true);
    QCOMPARE(p->values().at("pin_omega"), 1.0);
    QVERIFY(!base->isEnabled());
    QVERIFY(!reason->isHidden());
    QVERIFY(reason->text().contains("pin ω"));
    QCOMPARE(p->noEffectReason("base"), reason->text().mid(QStringLiteral("no effect: ").size()));
    settle(ExplorerView::Kernel);
    QVERIFY(shell_->explorer()->lastError().isEmpty());
    pin->setChecked(false);
    QVERIFY(base->isEnabled());
    QVERIFY(p->noEffectReason("base").isEmpty());
    // Setting the value programmatically (sessions, undo) moves the check box too.
    QVERIFY(p->setValue("pin_omega", 1));
    QVERIFY(pin->isChecked());
    QVERIFY(!base->isEnabled());
  }

  // head_dim = 15 cannot be rotated in pairs: core says so; the last good plot stays.
  void invalidParameterShowsErrorAndKeepsPlot() {
    select("rope", WindowView::Kernel);
    settle(ExplorerView::Kernel);
    const QCPGraph* kernel = window_->kernelView()->kernelGraph();
    QVERIFY(kernel);
    const double before = valueAt(kernel, 10);
    auto* headDim = window_->parameters()->findChild<QSpinBox*>("param_head_dim");
    QVERIFY(headDim);
    headDim->setValue(15);
    settle(ExplorerView::Kernel);
    QVERIFY(!window_->errorLabel()->isHidden());
    QVERIFY2(window_->errorLabel()->text().contains("head_dim"),
             qPrintable(window_->errorLabel()->text()));
    QCOMPARE(window_->kernelView()->kernelGraph(), kernel);  // same graph object, same data
    QCOMPARE(valueAt(kernel, 10), before);
    headDim->setValue(16);
    settle(ExplorerView::Kernel);
    QVERIFY(window_->errorLabel()->isHidden());
  }

  // Issue #4 §1, several families overlaid: on jordan-exact, rope and damped-rope are drawn over
  // the kernel. Damped-rope shares gamma and omega, so its overlay is core's damped-rope kernel at
  // gamma 0.02 and the panel's omega, e^(-gamma d) cos(omega d); rope has no gamma and stays put.
  void kernelOverlaysFollowSharedParameters() {
    select("jordan-exact", WindowView::Kernel);
    KernelView* v = window_->kernelView();
    v->setOverlay({"rope", "damped-rope"});
    settle(ExplorerView::Kernel);
    QVERIFY(shell_->explorer()->lastError().isEmpty());
    const QCPGraph* rope = v->overlayGraph("rope");
    QVERIFY(rope);
    QVERIFY(v->overlayGraph("damped-rope"));
    QCOMPARE(rope->name(), QString("rope (overlay)"));
    QCOMPARE(rope->pen().style(), Qt::DashLine);
    QVector<double> ropeBefore;
    for (int d = 0; d < 256; ++d) ropeBefore << valueAt(rope, d);

    auto* gamma = window_->parameters()->findChild<QDoubleSpinBox*>("param_gamma");
    QVERIFY(gamma);
    gamma->setValue(0.02);
    settle(ExplorerView::Kernel);
    const double omega = window_->parameters()->values().at("omega");
    QCOMPARE(window_->parameters()->values().at("gamma"), 0.02);
    // Expected values through the bridge, as the kernel view computes damped-rope's own K(d).
    ExplorerRequest expected;
    expected.view = ExplorerView::Kernel;
    expected.family = "damped-rope";
    expected.params = {{"gamma", 0.02}, {"omega", omega}};
    const ExplorerResult e = computeExplorer(expected);
    QVERIFY2(e.error.empty(), e.error.c_str());
    QCOMPARE(e.kernel.kernel.size(), size_t(256));
    const QCPGraph* damped = v->overlayGraph("damped-rope");
    QVERIFY(damped);
    QCOMPARE(damped->dataCount(), 256);
    for (int d = 0; d < 256; ++d) {
      QVERIFY(std::abs(valueAt(damped, d) - e.kernel.kernel[d]) < 1e-12);
      QVERIFY(std::abs(valueAt(damped, d) - std::exp(-0.02 * d) * std::cos(omega * d)) < 1e-12);
    }
    // The current family's kernel differs (eta's d-term), so the overlay is not a copy of it.
    QVERIFY(std::abs(valueAt(v->kernelGraph(), 30) - valueAt(damped, 30)) > 1e-3);
    rope = v->overlayGraph("rope");
    QVERIFY(rope);
    for (int d = 0; d < 256; ++d) QCOMPARE(valueAt(rope, d), ropeBefore[d]);
    QVERIFY(v->overlayStatus().isEmpty());
    // The plot's CSV carries a column per overlay.
    const QString header = plotCsv(v->plot()).section('\n', 0, 0);
    QVERIFY2(header.contains("rope (overlay)") && header.contains("damped-rope (overlay)"),
             qPrintable(header));

    // A session round trip keeps the choice, in order.
    const nlohmann::json saved = sessionToJson(captureSession(shell_->sessionParts()));
    QCOMPARE(saved["views"]["kernel"]["overlay"].size(), size_t(2));
    v->setOverlay({});
    SessionState state;
    QString error;
    QVERIFY2(sessionFromJson(saved, state, &error), qPrintable(error));
    QVERIFY2(applySession(shell_->sessionParts(), state, &error), qPrintable(error));
    QCOMPARE(v->overlay(), (std::vector<std::string>{"rope", "damped-rope"}));
    settle(ExplorerView::Kernel);
    QVERIFY(v->overlayGraph("damped-rope"));

    // Unknown family: refused naming the field, nothing changes. An old session without the key
    // loads with no overlay.
    nlohmann::json bad = saved;
    bad["views"]["kernel"]["overlay"] = {"rope", "no-such-family"};
    QVERIFY(sessionFromJson(bad, state, &error));
    QVERIFY(!applySession(shell_->sessionParts(), state, &error));
    QVERIFY2(error.contains("views.kernel.overlay[1]") && error.contains("no-such-family"),
             qPrintable(error));
    QCOMPARE(v->overlay().size(), size_t(2));
    nlohmann::json old = saved;
    old["views"]["kernel"].erase("overlay");
    QVERIFY2(sessionFromJson(old, state, &error), qPrintable(error));
    QVERIFY2(applySession(shell_->sessionParts(), state, &error), qPrintable(error));
    QVERIFY(v->overlay().empty());
  }

  // A shared value an overlay family refuses falls back to its default, said in the status line:
  // rope at head_dim 6 is fine, Jordan blocks need a multiple of 4, so its overlay uses 16.
  void kernelOverlayFallsBackToDefaultsForRefusedValues() {
    select("rope", WindowView::Kernel);
    KernelView* v = window_->kernelView();
    v->setOverlay({"jordan-exact"});
    auto* headDim = window_->parameters()->findChild<QSpinBox*>("param_head_dim");
    QVERIFY(headDim);
    headDim->setValue(6);
    settle(ExplorerView::Kernel);
    QVERIFY2(shell_->explorer()->lastError().isEmpty(),
             qPrintable(shell_->explorer()->lastError()));
    QVERIFY(v->overlayGraph("jordan-exact"));
    QVERIFY2(v->overlayStatus().contains("jordan-exact") && v->overlayStatus().contains("head_dim"),
             qPrintable(v->overlayStatus()));
    ExplorerRequest expected;
    expected.view = ExplorerView::Kernel;
    expected.family = "jordan-exact";
    const ExplorerResult e = computeExplorer(expected);  // its defaults (rope shares no other)
    QVERIFY2(e.error.empty(), e.error.c_str());
    QCOMPARE(valueAt(v->overlayGraph("jordan-exact"), 50), e.kernel.kernel[50]);
    // A fourth family is refused by the view (the menu disables the rest at three).
    v->setOverlay({"alibi", "damped-rope", "jordan-exact", "nope"});
    QCOMPARE(v->overlay().size(), size_t(3));
  }

  void attentionMapIsToeplitzOnlyForRelativeFamilies() {
    select("alibi", WindowView::Attention);
    settle(ExplorerView::Attention);
    QCPColorMapData* data = window_->attentionView()->colorMap()->data();
    QCOMPARE(data->keySize(), 128);
    QVERIFY(data->cell(0, 10) > 0);  // query 10 attends to key 0
    QVERIFY(window_->attentionView()->toeplitzText().contains("Toeplitz logits"));
    select("jordan-stabilized-abs", WindowView::Attention);
    settle(ExplorerView::Attention);
    QVERIFY2(window_->attentionView()->toeplitzText().contains("not Toeplitz"),
             qPrintable(window_->attentionView()->toeplitzText()));
  }

  void normsViewPlotsProfile() {
    for (const char* family : {"jordan-exact", "rope"}) {
      select(family, WindowView::Norms);
      settle(ExplorerView::Norms);
      const auto& g = window_->normsView()->graphs();
      QVERIFY(g.query->dataCount() > 20);
      QCOMPARE(g.key->dataCount(), g.query->dataCount());
      QCOMPARE(g.logitScale->dataCount(), g.query->dataCount());
      QCOMPARE(g.chartQuery->dataCount(), g.query->dataCount());  // the light-cone chart beside it
      QCOMPARE(g.chartKey->dataCount(), g.query->dataCount());
      bool found = false;
      const double top = g.chartKey->data()->valueRange(found).upper;
      QVERIFY(found && top <= std::log10(2.0) + 1e-9);  // bounded by 2 at every position
      QVERIFY(window_->normsView()->precisionText().contains("float32"));
      QVERIFY(window_->normsView()->precisionText().contains("Light-cone chart"));
    }
  }

  void probeViewFitsTheDefaultSet() {
    select("jordan-exact", WindowView::Probe);
    settle(ExplorerView::Probe);
    ProbeView* v = window_->probeView();
    QCOMPARE(v->settings().target, std::string("mixed"));  // the toy study's target
    QCOMPARE(v->table()->rowCount(), 6);                   // the paper's six families
    QCOMPARE(v->table()->columnCount(), 6);                // family, in window, 2L, 4L, 8L, basis
    QCOMPARE(v->table()->item(0, 0)->text(), QString("jordan-exact"));  // best at 8L
    QCOMPARE(v->graphs().target->dataCount(), 8192);                    // d = 0 .. 8L-1
    QCOMPARE(v->graphs().fitted.size(), size_t(6));
  }

  void diagnosticsViewShowsBars() {
    select("pj-bias", WindowView::Diagnostics);
    settle(ExplorerView::Diagnostics);
    const auto& b = window_->diagnosticsView()->bars();
    QVERIFY(b.massShare->dataCount() >= 3);
    QCOMPARE(b.energy->dataCount(), b.massShare->dataCount());
    QCOMPARE(b.loo->dataCount(), b.massShare->dataCount());
  }

  // A sector target runs core's adaptive recovery: one bar per jet order (FJ and LC summed).
  void diagnosticsViewRunsTheAdaptiveRecovery() {
    select("pj-bias", WindowView::Diagnostics);
    window_->diagnosticsView()->setSettings({"first_jet"});
    settle(ExplorerView::Diagnostics);
    QCOMPARE(window_->diagnosticsView()->bars().massShare->dataCount(), 4);  // r = 0 .. 3
    QVERIFY(window_->diagnosticsView()->summaryText().contains("Adaptive"));
  }

  // Issue #16 (3): the probe's, diagnostics', norms' and attention plots speak the formulas'
  // notation (targets as K(d), components as FJ₂, log₁₀, softmaxⱼ), never a raw identifier.
  void plotTextReadsAsMathematics() {
    select("jordan-exact", WindowView::Probe);
    ProbeView* probe = window_->probeView();
    probe->setSettings({"damped_mixed", false});
    settle(ExplorerView::Probe);
    QString text = plotText(probe->plot());
    QVERIFY2(!text.contains(kRawIdentifier), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("target K(d) = e⁻ᵞᵈ (cos ωd + 0.75 (d/L) sin ωd)")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("lag d")), qPrintable(text));
    // The CSV export keeps the key a script reads (export/plot_export.h), not the legend.
    QCOMPARE(probe->graphs().target->property(kCsvKeyProperty).toString(),
             QStringLiteral("target damped_mixed"));

    select("pj-bias", WindowView::Diagnostics);
    // The families' reasons are prose with $…$ formulas: shown in Unicode, no dollar signs.
    const QString why = window_->parameters()->noEffectReason("omega");
    QVERIFY2(why.contains(QStringLiteral("ωₕ")) && !why.contains('$'), qPrintable(why));
    DiagnosticsView* diag = window_->diagnosticsView();
    diag->setSettings({"mixed_raw"});
    settle(ExplorerView::Diagnostics);
    text = plotText(diag->plot());
    QVERIFY2(!text.contains(kRawIdentifier), qPrintable(text));
    for (const QString& want : {QStringLiteral("FJ₀"), QStringLiteral("LC₁"),
                                QStringLiteral("affine"), QStringLiteral("FJᵣ")})
      QVERIFY2(text.contains(want), qPrintable(want + " not in:\n" + text));
    QVERIFY2(!text.contains("r="), qPrintable(text));
    QVERIFY2(diag->summaryText().contains(QStringLiteral("K(d) = (d/L) cos ωd")),
             qPrintable(diag->summaryText()));
    diag->setSettings({"first_jet"});  // the adaptive recovery: gates typeset, not g_fj
    settle(ExplorerView::Diagnostics);
    QVERIFY2(diag->summaryText().contains(QStringLiteral("g<sub>FJ</sub>")),
             qPrintable(diag->summaryText()));
    QVERIFY2(!plotText(diag->plot()).contains(kRawIdentifier), qPrintable(plotText(diag->plot())));

    select("jordan-exact", WindowView::Norms);
    settle(ExplorerView::Norms);
    text = plotText(window_->normsView()->plot());
    QVERIFY2(!text.contains(kRawIdentifier), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("log₁₀ ‖q′(p)‖/‖q‖")), qPrintable(text));

    text = plotText(window_->attentionView()->plot());
    QVERIFY2(!text.contains(kRawIdentifier), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("softmaxⱼ l(i, j)")), qPrintable(text));
  }

  // Each view's settings go in and come back as typed values; the widget a user sees shows them
  // (checked through the test hooks); a value the view does not offer keeps the current one.
  void viewSettingsAreTypedAndShown() {
    KernelView* k = window_->kernelView();
    k->setSettings({512, true, {"rope"}});
    QCOMPARE(k->settings().lagCount, 512LL);
    QVERIFY(k->settings().logLag);
    QCOMPARE(k->settings().overlay, std::vector<std::string>({"rope"}));
    QCOMPARE(k->findChild<QComboBox*>("lagCount")->currentText(), QString("512"));
    k->setSettings({500, false, {}});  // 500 is not offered
    QCOMPARE(k->settings().lagCount, 512LL);
    QCOMPARE(KernelView::lagCounts().front(), 16LL);
    QCOMPARE(KernelView::lagCounts().back(), 32768LL);

    AttentionView* a = window_->attentionView();
    a->setSettings({{256, 1}, false});
    QCOMPARE(a->settings().map.T, 256LL);
    QVERIFY(!a->settings().logColor);
    QVERIFY(!a->findChild<QCheckBox*>("logColor")->isChecked());
    NormsView* n = window_->normsView();
    n->setSettings({1024});
    QCOMPARE(n->settings().maxPos, 1024LL);
    ProbeView* p = window_->probeView();
    const std::string target = ProbeView::targets().back();
    p->setSettings({target, true});
    QCOMPARE(p->settings().target, target);
    QVERIFY(p->settings().familyOnly);
    p->setSettings({"no-such-target", false});
    QCOMPARE(p->settings().target, target);
    QVERIFY(!p->settings().familyOnly);
    DiagnosticsView* d = window_->diagnosticsView();
    d->setSettings({target});
    QCOMPARE(d->settings().target, target);
  }

  // The one way errors are shown: the first line in the status bar, all of it in a warning box
  // that does not block (the test goes on while it is open).
  void errorsShowInTheStatusBarAndABox() {
    showError(window_, {"Export image", "cannot write /x.png\nthe folder is read-only"},
              "testError");
    QCOMPARE(window_->statusBar()->currentMessage(), QString("cannot write /x.png"));
    auto* box = window_->findChild<QMessageBox*>("testError");
    QVERIFY(box);
    QTRY_VERIFY(box->isVisible());
    QCOMPARE(box->windowTitle(), QString("Export image"));
    QVERIFY(box->text().contains("read-only"));
    box->close();
    showStatus(window_, "wrote /y.png");
    QCOMPARE(window_->statusBar()->currentMessage(), QString("wrote /y.png"));
  }
};

QTEST_MAIN(TestExplorer)
#include "test_explorer.moc"
