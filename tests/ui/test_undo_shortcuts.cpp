// Undo/redo of parameter changes and the keyboard shortcuts, offscreen: moving gamma then eta
// and undoing twice brings back the defaults and the default kernel (numbers compared); a slider
// drag is one command; a family change restores the previous family with all its values; undo
// itself never records; every menu action carries its shortcut and the shortcuts work.
#include <qcustomplot.h>
#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPointer>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>
#include <QTextBrowser>
#include <QToolButton>
#include <QUndoStack>
#include <QtTest>

#include <functional>
#include <memory>

#include "app_shell.h"
#include "explorer/explorer_controller.h"
#include "explorer/kernel_view.h"
#include "explorer/parameter_panel.h"
#include "explorer_settle.h"
#include "help/view_help.h"
#include "lessons/lesson_panel.h"
#include "main_window.h"
#include "menus/menu_bar.h"
#include "training/training_panel.h"
#include "undo/parameter_undo.h"

using namespace poslab::ui;

namespace {
constexpr int kWaitMs = 60000;

std::vector<std::pair<double, double>> points(const QCPGraph* g) {
  std::vector<std::pair<double, double>> out;
  for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
    out.emplace_back(it->key, it->value);
  return out;
}

QList<QKeySequence> keys(std::initializer_list<const char*> list) {
  QList<QKeySequence> out;
  for (const char* k : list) out << QKeySequence(k);
  return out;
}
}  // namespace

class TestUndoShortcuts : public QObject {
  Q_OBJECT

  std::unique_ptr<AppShell> shell_;
  MainWindow* window_ = nullptr;

  void settle(ExplorerView view) { test::settleExplorer(shell_->explorer(), view, kWaitMs); }
  const MenuActions& acts() { return shell_->actions(); }
  QUndoStack* stack() { return shell_->undoStack(); }
  ParameterPanel* params() { return window_->parameters(); }

 private Q_SLOTS:
  void init() {
    shell_ = std::make_unique<AppShell>();
    window_ = &shell_->window();
    window_->show();
    QVERIFY(QTest::qWaitForWindowActive(window_));
  }
  void cleanup() {
    shell_.reset();
    window_ = nullptr;
  }

  void undoTwiceRestoresDefaultsAndTheDefaultKernel() {
    QVERIFY(params()->setFamily("jordan-exact"));
    window_->showView(WindowView::Kernel);
    settle(ExplorerView::Kernel);
    const auto defaults = params()->values();
    const auto defaultKernel = points(window_->kernelView()->kernelGraph());
    QCOMPARE(defaultKernel.size(), size_t(256));
    const int base = stack()->count();

    // gamma typed into its spin box (Enter): one command.
    params()->findChild<QDoubleSpinBox*>("param_gamma")->setValue(0.02);
    QCOMPARE(stack()->count(), base + 1);
    // eta dragged on its slider through several values: one command.
    auto* eta = params()->findChild<QSlider*>("slider_eta");
    eta->setSliderDown(true);
    for (int p : {600, 650, 700, 800}) eta->setValue(p);
    eta->setSliderDown(false);
    QCOMPARE(stack()->count(), base + 2);
    const double draggedEta = params()->values().at("eta");
    QVERIFY(draggedEta != defaults.at("eta"));
    settle(ExplorerView::Kernel);
    QVERIFY(points(window_->kernelView()->kernelGraph()) != defaultKernel);

    acts().undo->trigger();
    QCOMPARE(params()->values().at("eta"), defaults.at("eta"));
    QCOMPARE(params()->values().at("gamma"), 0.02);
    acts().undo->trigger();
    QCOMPARE(params()->values(), defaults);  // every value, exactly
    QCOMPARE(stack()->count(), base + 2);    // applying undo pushed nothing
    QCOMPARE(stack()->index(), base);
    settle(ExplorerView::Kernel);
    const auto undone = points(window_->kernelView()->kernelGraph());
    QCOMPARE(undone.size(), defaultKernel.size());
    for (size_t n = 0; n < undone.size(); ++n) {
      QCOMPARE(undone[n].first, defaultKernel[n].first);
      QCOMPARE(undone[n].second, defaultKernel[n].second);
    }
    // Redo brings back gamma, then the whole drag's end value.
    acts().redo->trigger();
    QCOMPARE(params()->values().at("gamma"), 0.02);
    acts().redo->trigger();
    QCOMPARE(params()->values().at("eta"), draggedEta);
    QCOMPARE(stack()->count(), base + 2);
  }

  // Two drags of the same slider are two commands; a drag back to the start is none.
  void eachDragIsOneCommand() {
    QVERIFY(params()->setFamily("jordan-exact"));
    auto* eta = params()->findChild<QSlider*>("slider_eta");
    const int start = eta->value();
    const int base = stack()->count();
    for (int target : {700, 300}) {
      eta->setSliderDown(true);
      eta->setValue(target - 10);
      eta->setValue(target);
      eta->setSliderDown(false);
    }
    QCOMPARE(stack()->count(), base + 2);
    eta->setSliderDown(true);
    eta->setValue(500);
    eta->setValue(300);
    eta->setSliderDown(false);
    QCOMPARE(stack()->count(), base + 2);  // ended where it began
    Q_UNUSED(start);
  }

  void familyChangeUndoRestoresFamilyAndValues() {
    QVERIFY(params()->setFamily("rope"));
    QVERIFY(params()->setValue("base", 500));
    QVERIFY(params()->setValue("head_dim", 32));
    QVERIFY(params()->setFamily("alibi"));
    QCOMPARE(stack()->text(stack()->index() - 1), QString("family rope → alibi"));
    acts().undo->trigger();
    QCOMPARE(params()->familyId(), std::string("rope"));
    QCOMPARE(params()->values().at("base"), 500.0);
    QCOMPARE(params()->values().at("head_dim"), 32.0);
    acts().redo->trigger();
    QCOMPARE(params()->familyId(), std::string("alibi"));
    QCOMPARE(params()->values().at("heads"), 4.0);  // alibi's defaults, as after the change
  }

  // The menu bar is built from typed actions (menus/menu_bar.h): each is there, with its text,
  // in the menu bar (or, for the keys that work without a menu, on the window), and the menus
  // stand in their order. Fails when a menu entry is dropped or a menu goes missing.
  void everyMenuActionIsInTheWindow() {
    QList<QAction*> reachable;
    std::function<void(const QList<QAction*>&)> collect = [&](const QList<QAction*>& list) {
      for (QAction* a : list) {
        reachable << a;
        if (a->menu()) collect(a->menu()->actions());
      }
    };
    collect(window_->menuBar()->actions());
    const std::vector<QAction*> all = acts().all();
    QCOMPARE(all.size(), size_t{26 + kWindowViewCount});
    for (QAction* a : all) {
      QVERIFY(a);
      QVERIFY2(!a->text().isEmpty(), qPrintable(a->objectName()));
      const bool windowOnly =
          a == acts().lessonNext || a == acts().lessonBack || a == acts().leavePresentation;
      QVERIFY2(windowOnly ? window_->actions().contains(a) : reachable.contains(a),
               qPrintable("missing: " + a->objectName()));
    }
    for (QMenu* m : acts().menus()) {
      QVERIFY(m);
      QVERIFY2(reachable.contains(m->menuAction()), qPrintable("menu missing: " + m->title()));
    }
    QStringList titles;
    for (QAction* a : window_->menuBar()->actions()) titles << a->text().remove('&');
    QCOMPARE(titles, QStringList({"File", "Presets", "Edit", "View", "Training", "Help"}));
    QVERIFY(!acts().presets->actions().isEmpty());  // one entry per preset
  }

  void actionsCarryTheirShortcuts() {
    QCOMPARE(acts().undo->shortcuts(), keys({"Ctrl+Z"}));
    QCOMPARE(acts().redo->shortcuts(), keys({"Ctrl+Shift+Z", "Ctrl+Y"}));
    for (int i = 1; i <= 6; ++i)
      QCOMPARE(acts().views[static_cast<size_t>(i - 1)]->shortcut(),
               QKeySequence("Ctrl+" + QString::number(i)));
    QCOMPARE(acts().exportImage->shortcut(), QKeySequence("Ctrl+E"));
    QCOMPARE(acts().exportData->shortcut(), QKeySequence("Ctrl+Shift+E"));
    QCOMPARE(acts().playPause->shortcuts(), keys({"Ctrl+P", "Space"}));
    QCOMPARE(acts().step->shortcut(), QKeySequence("Ctrl+."));
    QCOMPARE(acts().reset->shortcut(), QKeySequence("Ctrl+R"));
    QCOMPARE(acts().shortcuts->shortcut(), QKeySequence("F1"));
    QCOMPARE(acts().whatAmILookingAt->shortcut(), QKeySequence("Shift+F1"));
    // Each is in a menu (where its shortcut is shown) and no key is used twice.
    QSet<QString> seen;
    for (QAction* a : window_->findChildren<QAction*>()) {
      for (const QKeySequence& k : a->shortcuts()) {
        QVERIFY2(!seen.contains(k.toString()), qPrintable("used twice: " + k.toString()));
        seen.insert(k.toString());
      }
    }
    QVERIFY(!acts().undo->associatedObjects().isEmpty());
  }

  void keysSwitchTabsAndUndo() {
    QTest::keyClick(window_, Qt::Key_3, Qt::ControlModifier);
    QCOMPARE(window_->currentView(), WindowView::Norms);
    QVERIFY(acts().views[2]->isChecked());
    QTest::keyClick(window_, Qt::Key_1, Qt::ControlModifier);
    QCOMPARE(window_->currentView(), WindowView::Kernel);
    QVERIFY(params()->setFamily("jordan-exact"));
    const double gamma = params()->values().at("gamma");
    QVERIFY(params()->setValue("gamma", 0.5));
    window_->kernelView()->plot()->setFocus();
    QTest::keyClick(window_, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(params()->values().at("gamma"), gamma);
    QTest::keyClick(window_, Qt::Key_Y, Qt::ControlModifier);
    QCOMPARE(params()->values().at("gamma"), 0.5);
  }

  // Training keys work on the training tab only; Space stays with a focused spin box.
  void trainingKeys() {
    TrainingPanel* panel = window_->trainingPanel();
    panel->findChild<QSpinBox*>("steps")->setValue(100000);
    panel->findChild<QSpinBox*>("batch")->setValue(2);
    panel->findChild<QSpinBox*>("trainLength")->setValue(8);
    panel->findChild<QLineEdit*>("evalLengths")->setText("8");
    window_->showView(WindowView::Kernel);
    QVERIFY(!acts().playPause->isEnabled());
    QTest::keyClick(window_, Qt::Key_P, Qt::ControlModifier);
    QCOMPARE(panel->runCount(), 0);

    QTest::keyClick(window_, Qt::Key_6, Qt::ControlModifier);
    QCOMPARE(window_->currentView(), WindowView::Training);
    auto* steps = panel->findChild<QSpinBox*>("steps");
    steps->setFocus();
    QTest::keyClick(steps, Qt::Key_Space);
    QCOMPARE(panel->runCount(), 0);                                 // the spin box had the key
    QTest::keyClick(window_, Qt::Key_Period, Qt::ControlModifier);  // one step
    QCOMPARE(panel->runCount(), 2);
    QTRY_COMPARE_WITH_TIMEOUT(panel->stepCount(), 1LL, kWaitMs);
    window_->tabs()->setFocus();
    QTest::keyClick(window_->tabs(), Qt::Key_Space);
    QVERIFY(panel->isPlaying());
    QTRY_VERIFY_WITH_TIMEOUT(panel->stepCount() >= 3, kWaitMs);
    QTest::keyClick(window_, Qt::Key_P, Qt::ControlModifier);
    QVERIFY(!panel->isPlaying());
    QTest::keyClick(window_, Qt::Key_R, Qt::ControlModifier);
    QTRY_COMPARE_WITH_TIMEOUT(panel->stepCount(), 0LL, kWaitMs);
  }

  // Issue #16 section 3: Shift+F1 explains the current tab; every tab has its own note.
  void whatAmILookingAtExplainsTheCurrentTab() {
    const QStringList titles = {"Kernel & basis", "Attention map",  "Feature norms",
                                "Kernel probe",   "PJ diagnostics", "Live training"};
    for (int v = 0; v < titles.size(); ++v) {
      const QString md = viewHelpMarkdown(static_cast<WindowView>(v));
      QVERIFY2(md.startsWith("# " + titles[v] + ": what am I looking at?"),
               qPrintable(md.left(60)));
      QVERIFY(md.size() > 400);
    }
    window_->showView(WindowView::Norms);
    acts().whatAmILookingAt->trigger();
    QTextBrowser* text = shell_->help().text();
    QVERIFY(text);
    QVERIFY(text->isVisible());
    QVERIFY(text->toPlainText().contains("Feature norms"));
    window_->showView(WindowView::Probe);
    acts().whatAmILookingAt->trigger();
    QCOMPARE(shell_->help().text(), text);  // one window, reused
    QVERIFY(text->toPlainText().contains("Kernel probe"));
  }

  // The help window is held by the shell (a QPointer), not found by its object name: asking twice
  // (the menu, then the Lessons panel's "?") shows one dialog; closed, it comes back; deleted,
  // the next ask builds a new one.
  void helpWindowIsOneDialogThatReopens() {
    HelpWindow& help = shell_->help();
    QVERIFY(!help.dialog());  // built on first use
    const auto helpDialogs = [this] {
      int n = 0;
      for (QDialog* d : window_->findChildren<QDialog*>())
        n += d->findChildren<QTextBrowser*>().size() == 1 &&
             d->windowTitle() == QStringLiteral("What am I looking at?");
      return n;
    };
    window_->showView(WindowView::Attention);
    acts().whatAmILookingAt->trigger();
    QPointer<QDialog> first = help.dialog();
    QVERIFY(first && first->isVisible());
    QVERIFY(help.text()->toPlainText().contains("Attention map"));
    shell_->lessonPanel()->helpButton()->click();
    QCOMPARE(help.dialog(), first.data());
    QCOMPARE(helpDialogs(), 1);
    QVERIFY(help.text()->toPlainText().contains("Lessons and presentation mode"));

    first->close();  // the title bar's close: hidden, kept
    QVERIFY(!first->isVisible());
    window_->showView(WindowView::Kernel);
    acts().whatAmILookingAt->trigger();
    QCOMPARE(help.dialog(), first.data());
    QVERIFY(first->isVisible());
    QVERIFY(help.text()->toPlainText().contains("Kernel & basis"));

    auto* buttons = first->findChild<QDialogButtonBox*>();
    QVERIFY(buttons);
    buttons->button(QDialogButtonBox::Close)->click();
    QVERIFY(!first->isVisible());
    acts().whatAmILookingAt->trigger();
    QVERIFY(first->isVisible());
    QCOMPARE(helpDialogs(), 1);
    if (const QString dir = qEnvironmentVariable("POSLAB_TRAINING_SHOTS"); !dir.isEmpty())
      QVERIFY(first->grab().save(QDir(dir).filePath("help_window_reopened.png")));

    delete first.data();  // gone (as when its parent rebuilt it): the pointer knows
    QVERIFY(!help.dialog());
    acts().whatAmILookingAt->trigger();
    QVERIFY(help.dialog() && help.dialog()->isVisible());
    QVERIFY(help.text()->toPlainText().contains("Kernel & basis"));
    QCOMPARE(helpDialogs(), 1);
  }

  void shortcutsDialogListsEveryMenuShortcut() {
    // A menu added by someone else later is listed too: the dialog reads the menu bar.
    QMenu* extra = window_->menuBar()->addMenu("Extra");
    extra->addAction("Frobnicate")->setShortcut(QKeySequence("Ctrl+Alt+K"));
    QTest::keyClick(window_, Qt::Key_F1);
    auto* dialog = window_->findChild<QDialog*>("shortcutsDialog");
    QVERIFY(dialog && dialog->isVisible());
    auto* table = dialog->findChild<QTableWidget*>("shortcutsTable");
    QStringList rows;
    for (int r = 0; r < table->rowCount(); ++r)
      rows << table->item(r, 0)->text() + " = " + table->item(r, 1)->text();
    const QString all = rows.join('\n');
    for (const char* expected :
         {"Ctrl+Z = Edit › Undo", "Ctrl+E = File › Export › Current view as image",
          "Ctrl+6 = View › Live training", "Ctrl+1 = View › Kernel & basis",
          "Ctrl+P  or  Space = Training › Play / Pause", "Ctrl+. = Training › Step",
          "Ctrl+R = Training › Reset"})
      QVERIFY2(all.contains(expected), qPrintable(QString(expected) + " missing from\n" + all));
    QVERIFY2(all.contains("Ctrl+Alt+K = Extra › Frobnicate"), qPrintable(all));
  }
};

QTEST_MAIN(TestUndoShortcuts)
#include "test_undo_shortcuts.moc"
