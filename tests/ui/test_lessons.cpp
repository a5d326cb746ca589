// Lessons and presentation mode in the window (issue #16 sections 1 and 2): every shipped lesson
// opens and every one of its steps applies its state without error; Next / Back, PageDown /
// PageUp and the progress text; a teacher's bad lesson is refused naming the step and the field
// and changes nothing; presentation mode folds the setup away, scales text and lines, shows the
// lesson as a caption and leave() restores exactly the layout it found.
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

#include <algorithm>

#include <qcustomplot.h>

#include "app_shell.h"
#include "bridge/loaded_families.h"
#include "explorer/explorer_controller.h"
#include "explorer/kernel_view.h"
#include "explorer/parameter_panel.h"
#include "lessons/lesson.h"
#include "lessons/lesson_panel.h"
#include "lessons/lesson_player.h"
#include "lessons/lesson_step_state.h"
#include "main_window.h"
#include "presentation/presentation_mode.h"
#include "session/family_file_gate.h"
#include "session/session_state.h"
#include "test_files.h"
#include "training/training_panel.h"

using namespace poslab::ui;
using nlohmann::json;

namespace {

// What a step's merged state says the window shows, checked against the window.
void expectStateShown(const MainWindow& w, const poslab::Lesson& lesson, size_t index) {
  const json state = lessonStateUpTo(lesson, index);
  if (state.contains("explorer")) {
    QCOMPARE(QString::fromStdString(w.parameters()->familyId()),
             QString::fromStdString(state["explorer"]["family"].get<std::string>()));
    if (state["explorer"].contains("values"))
      for (const auto& [name, value] : state["explorer"]["values"].items())
        QCOMPARE(w.parameters()->values().at(name), value.get<double>());
  }
  if (state.contains("tab") && lesson.steps[index].trainingView.empty())
    QCOMPARE(static_cast<int>(w.currentView()),
             static_cast<int>(*parseWindowView(QString::fromStdString(state["tab"]))));
  if (state.contains("views") && state["views"].contains("kernel"))
    QCOMPARE(w.kernelView()->settings().lagCount,
             state["views"]["kernel"]["lags"].get<long long>());
  if (state.contains("training")) {
    // The form lists families in the registry's order.
    auto shown = w.trainingPanel()->experiment().families;
    auto given = state["training"]["families"].get<std::vector<std::string>>();
    std::sort(shown.begin(), shown.end());
    std::sort(given.begin(), given.end());
    QCOMPARE(shown, given);
  }
  if (!lesson.steps[index].trainingView.empty()) QCOMPARE(w.currentView(), WindowView::Training);
}

}  // namespace

class TestLessons : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("poslab-tests");
    QCoreApplication::setApplicationName("test_lessons");
    QSettings().clear();
  }

  // Every shipped lesson, every step, in order and then backwards: no error, the state shown.
  void everyShippedLessonAppliesEveryStep() {
    const std::vector<std::string> files = poslab::lessonFiles();
    QVERIFY(files.size() >= 8);
    AppShell shell;
    MainWindow& w = shell.window();
    LessonPlayer* player = shell.lessons();
    for (const std::string& file : files) {
      const poslab::Lesson lesson = poslab::readLessonFile(file);
      QString error;
      QVERIFY2(player->openFile(QString::fromStdString(file), &error), qPrintable(error));
      const int n = player->stepCount();
      QCOMPARE(n, static_cast<int>(lesson.steps.size()));
      for (int k = 0; k < n; ++k) {
        if (k > 0) QVERIFY2(player->goTo(k, &error), qPrintable(error));
        QCOMPARE(player->stepIndex(), k);
        expectStateShown(w, lesson, static_cast<size_t>(k));
        QCOMPARE(lesson.steps[static_cast<size_t>(k)].train, w.trainingPanel()->isPlaying());
        w.trainingPanel()->stop();  // the test looks at setups, not at training
        QVERIFY(shell.lessonPanel()->progressLabel()->text().startsWith(
            QStringLiteral("Step %1 of %2").arg(k + 1).arg(n)));
        QVERIFY(!shell.lessonPanel()->textView()->toPlainText().contains('$'));
      }
      for (int k = n - 2; k >= 0; --k) {
        QVERIFY2(player->goTo(k, &error), qPrintable(error));
        expectStateShown(w, lesson, static_cast<size_t>(k));
        w.trainingPanel()->stop();
      }
    }
    QVERIFY(w.findChildren<QMessageBox*>().isEmpty());  // no error box along the way
  }

  void nextBackKeysAndProgress() {
    AppShell shell;
    MainWindow& w = shell.window();
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QAction* next = shell.actions().lessonNext;
    QAction* back = shell.actions().lessonBack;
    QVERIFY(next && back);
    QVERIFY(!next->isEnabled());  // no lesson: PageDown stays with lists and fields
    QString error;
    const QString file = QString::fromStdString(poslab::lessonFile("01-rope-rotation"));
    QVERIFY2(shell.lessons()->openFile(file, &error), qPrintable(error));
    w.lessonDock()->show();
    QVERIFY(next->isEnabled());
    QCOMPARE(next->shortcut(), QKeySequence(Qt::Key_PageDown));
    QCOMPARE(back->shortcut(), QKeySequence(Qt::Key_PageUp));
    QVERIFY(!shell.lessonPanel()->backButton()->isEnabled());
    next->trigger();
    QCOMPARE(shell.lessons()->stepIndex(), 1);
    QVERIFY(shell.lessonPanel()->progressLabel()->text().startsWith("Step 2 of 4"));
    QTest::mouseClick(shell.lessonPanel()->nextButton(), Qt::LeftButton);
    QCOMPARE(shell.lessons()->stepIndex(), 2);
    QCOMPARE(w.parameters()->values().at("base"), 500.0);  // step 3 sets base 500
    back->trigger();
    QCOMPARE(shell.lessons()->stepIndex(), 1);
    QCOMPARE(w.parameters()->values().at("base"), 10000.0);  // step 2 has the default again
    QVERIFY(shell.lessons()->goTo(3, &error));
    QVERIFY(!shell.lessonPanel()->nextButton()->isEnabled());
    QVERIFY(!shell.lessons()->next());  // at the end: stays
    QCOMPARE(shell.lessons()->stepIndex(), 3);
    QCOMPARE(w.currentView(), WindowView::Probe);
    // The chooser shows the open lesson; choosing another opens it at its first step.
    QCOMPARE(shell.lessonPanel()->chooser()->currentIndex(), 1);
  }

  // A teacher's lesson with a value out of range in step 2: refused on open, naming the step and
  // the field; the window and the open lesson are unchanged.
  void badLessonNamesStepAndFieldAndChangesNothing() {
    QTemporaryDir dir;
    AppShell shell;
    MainWindow& w = shell.window();
    QVERIFY(w.parameters()->setFamily("alibi"));
    const json before = sessionToJson(captureSession(shell.sessionParts()));
    const QString file = dir.filePath("mine.json");
    writeText(file, R"({"format": "poslab-lesson-1", "title": "Mine", "steps": [
      {"title": "a", "text": "x", "action": "y", "state": {"explorer": {"family": "rope"}}},
      {"title": "b", "text": "x", "action": "y",
       "state": {"explorer": {"family": "damped-rope", "values": {"gamma": 70}}}}]})");
    QString error;
    QVERIFY(!shell.lessons()->openFile(file, &error));
    QVERIFY2(error.contains("step 2") && error.contains("explorer.values.gamma"),
             qPrintable(error));
    QVERIFY2(error.contains(file), qPrintable(error));
    QVERIFY(!shell.lessons()->isOpen());
    QCOMPARE(sessionToJson(captureSession(shell.sessionParts())).dump(), before.dump());

    writeText(file, R"({"format": "poslab-lesson-1", "title": "Mine", "steps": [
      {"title": "a", "text": "x", "action": "y", "state": {"views": {"kernel": {"lagz": 3}}}}]})");
    QVERIFY(!shell.lessons()->openFile(file, &error));
    QVERIFY2(error.contains("step 1") && error.contains("views.kernel.lagz"), qPrintable(error));

    writeText(file, R"({"format": "poslab-lesson-1", "title": "Mine", "steps": [
      {"title": "a", "text": "x", "action": "y", "state": {"training":
        {"families": ["rope"], "config": {"task": {"id": "no-such-task"}}}}}]})");
    QVERIFY(!shell.lessons()->openFile(file, &error));
    QVERIFY2(error.contains("step 1") && error.contains("training.config.task"), qPrintable(error));
    QCOMPARE(sessionToJson(captureSession(shell.sessionParts())).dump(), before.dump());
  }

  // A lesson holds no trained models (docs/LESSONS.md). One whose step names a trained model (as
  // the fallback for a missing module file) is refused on open for that, naming the step and the
  // field, before any module or checkpoint is read: it used to load the step's module first and,
  // the file missing, read the trained model's checkpoint, on the calling (UI) thread.
  void lessonNamingTrainedModelsIsRefusedBeforeAnythingIsRead() {
    QTemporaryDir dir;
    AppShell shell;
    MainWindow& w = shell.window();
    const json before = sessionToJson(captureSession(shell.sessionParts()));
    const std::vector<std::string> loaded = loadedFamilies().ids();
    const QString family = "file:" + dir.filePath("gone.pt");  // no such file
    writeText(dir.filePath("model.pt"), "not a checkpoint");
    const QString file = dir.filePath("models.json");
    writeText(file, QString(R"({"format": "poslab-lesson-1", "title": "Mine", "steps": [
      {"title": "a", "text": "x", "action": "y", "state": {"explorer": {"family": "rope"}}},
      {"title": "b", "text": "x", "action": "y", "state": {
        "explorer": {"family": "%1"},
        "family_files": [{"family": "%1", "hash": "0000000000000000"}],
        "trained_models": [{"family": "%1", "file": "%2", "step": 3}]}}]})")
                        .arg(family, dir.filePath("model.pt"))
                        .toUtf8());
    QString error;
    QVERIFY(!shell.lessons()->openFile(file, &error));
    QVERIFY2(error.contains("step 2") && error.contains("trained_models") &&
                 !error.contains("gone.pt") && !error.contains("model.pt"),
             qPrintable(error));
    QVERIFY(!shell.lessons()->isOpen());
    QCOMPARE(loadedFamilies().ids(), loaded);
    QCOMPARE(sessionToJson(captureSession(shell.sessionParts())).dump(), before.dump());

    // Through the window's gate (File > Open Lesson, --lesson): refused at once, no notice that
    // loading runs code, nothing loading.
    bool answered = false;
    shell.lessons()->openFileInBackground(file, 0, [&](bool ok, const QString& line) {
      answered = true;
      QVERIFY(!ok);
      QVERIFY2(line.contains("trained_models"), qPrintable(line));
    });
    QVERIFY(answered);
    QVERIFY(!w.findChild<QMessageBox*>("encodingCodeNotice"));
    QVERIFY(!shell.familyGate()->busy());
    for (QMessageBox* box : w.findChildren<QMessageBox*>("lessonError")) box->close();
  }

  void presentationModeScalesAndRestoresExactly() {
    AppShell shell;
    MainWindow& w = shell.window();
    w.resize(1200, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    shell.presentation()->setUseFullScreen(false);
    QString error;
    QVERIFY(shell.lessons()->openFile(QString::fromStdString(poslab::lessonFile("03-jordan-shear")),
                                      &error, 1));
    w.lessonDock()->show();
    QTRY_VERIFY(!shell.explorer()->busy() && shell.explorer()->isUpToDate(ExplorerView::Kernel));
    QCustomPlot* plot = w.kernelView()->findChild<QCustomPlot*>();
    QVERIFY(plot && plot->graphCount() > 0);
    const double graphWidth = plot->graph(0)->pen().widthF();
    const QFont labelFont = plot->xAxis->labelFont();
    const QFont windowFont = w.font();
    const QByteArray docks = w.saveState();
    const QList<int> mainSizes = w.findChild<QSplitter*>("mainSplitter")->sizes();

    const QSize size = w.size();
    shell.actions().presentation->trigger();
    QVERIFY(shell.presentation()->isActive());
    QVERIFY(!w.leftColumn()->isVisible());
    QVERIFY(!w.trainingPanel()->setupArea()->isVisibleTo(w.trainingPanel()));
    QVERIFY(!w.menuBar()->isVisible());
    QVERIFY(!w.lessonDock()->isVisible());
    QVERIFY(w.caption()->isVisible());
    QVERIFY(shell.presentation()->captionText().contains("distance-times-phase channel"));
    QVERIFY(w.font().pointSizeF() > windowFont.pointSizeF() * 1.5);
    QVERIFY(plot->xAxis->labelFont().pointSizeF() > labelFont.pointSizeF() * 1.5);
    plot->replot();
    QVERIFY(plot->graph(0)->pen().widthF() > graphWidth * 1.5);
    // The lesson steps on with PageDown's action; a new result's graphs are scaled too.
    shell.actions().lessonNext->trigger();
    QCOMPARE(shell.lessons()->stepIndex(), 2);
    QVERIFY(shell.presentation()->captionText().contains("direct sum"));
    QTRY_VERIFY(!shell.explorer()->busy() && shell.explorer()->isUpToDate(ExplorerView::Kernel));
    plot->replot();
    QVERIFY(plot->graph(0)->pen().widthF() > 1.5);

    QAction* leave = shell.actions().leavePresentation;
    QVERIFY(leave->isEnabled());
    QCOMPARE(leave->shortcut(), QKeySequence(Qt::Key_Escape));
    leave->trigger();
    QVERIFY(!shell.presentation()->isActive());
    QVERIFY(!leave->isEnabled());
    QVERIFY(w.leftColumn()->isVisible());
    QVERIFY(w.trainingPanel()->setupArea()->isVisibleTo(w.trainingPanel()));
    QVERIFY(w.menuBar()->isVisible());
    QVERIFY(w.lessonDock()->isVisible());
    QVERIFY(!w.caption()->isVisible());
    QCOMPARE(w.font(), windowFont);
    QCOMPARE(plot->xAxis->labelFont(), labelFont);
    QCOMPARE(w.size(), size);
    QTRY_COMPARE(w.saveState(), docks);  // once the layout has settled
    QTRY_COMPARE(w.findChild<QSplitter*>("mainSplitter")->sizes(), mainSizes);
    plot->replot();
    QCOMPARE(plot->graph(0)->pen().widthF(), 1.2);  // the basis pen the kernel view draws
    QVERIFY(!shell.actions().presentation->isChecked());
  }

  // The first-start offer belongs to the application only: a window never shows it by itself.
  void noLessonOfferInTests() {
    AppShell shell;
    MainWindow& w = shell.window();
    w.show();
    QTest::qWait(50);
    QVERIFY(!w.findChild<QMessageBox*>("lessonOffer"));
    QVERIFY(!QSettings().contains("lessons/offered"));
  }
};

QTEST_MAIN(TestLessons)
#include "test_lessons.moc"
