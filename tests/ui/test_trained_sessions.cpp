// Sessions with trained models (File > Save Session with Trained Models): the runs' checkpoints
// are written next to the session without blocking the UI, the session lists them, and opening
// it puts the runs back at the saved step so that the next step's loss is exactly what the
// original run gave. A missing, corrupt or foreign checkpoint is refused naming the file, and the
// window (setup, runs, explorer) stays as it was. Tiny models: the whole file runs in seconds.
#include <QAction>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <qcustomplot.h>

#include "app_shell.h"
#include "bridge/trained_model.h"
#include "explorer/parameter_panel.h"
#include "export/run_report.h"
#include "main_window.h"
#include "menus/file_menu.h"
#include "menus/window_commands.h"
#include "session/session_io.h"
#include "session/session_state.h"
#include "tiny_setups.h"
#include "train/preset.h"
#include "training/training_panel.h"

using namespace poslab::ui;
using nlohmann::json;

namespace {

constexpr int kWaitMs = 60000;

// Indirect indexing small enough for milliseconds per step (as test_training_panel).
poslab::ExperimentSpec tinySetup(std::vector<std::string> families) {
  return test::tinyIndirectSetup(std::move(families), /*layers=*/1, /*seed=*/5, "tiny-trained");
}

json readJson(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return json();
  const QByteArray bytes = f.readAll();
  return json::parse(bytes.constData(), bytes.constData() + bytes.size());
}

void writeBytes(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  QCOMPARE(f.write(bytes), bytes.size());
}

QByteArray readBytes(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class TestTrainedSessions : public QObject {
  Q_OBJECT

  // Steps every run once (the panel's Step) and waits until each has reported `target`.
  static void stepTo(TrainingPanel* panel, long long target) {
    panel->stepOnce();
    for (int i = 0; i < panel->runCount(); ++i)
      QTRY_COMPARE_WITH_TIMEOUT(panel->runStep(i), target, kWaitMs);
  }

  // Loads `setup`, takes `steps` steps, saves with models to `file` and waits for the outcome.
  static void trainAndSave(AppShell& shell, const poslab::ExperimentSpec& setup, int steps,
                           const QString& file) {
    TrainingPanel* panel = shell.window().trainingPanel();
    QString error;
    QVERIFY2(panel->setExperiment(setup, &error), qPrintable(error));
    for (int s = 1; s <= steps; ++s) stepTo(panel, s);
    QSignalSpy saved(shell.sessions(), &SessionController::sessionSaved);
    QVERIFY(shell.sessions()->saveFileWithModels(file));
    QVERIFY(panel->isSavingCheckpoints() || saved.count() == 1);  // asynchronous
    QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, kWaitMs);
    QCOMPARE(saved.at(0).at(0).toString(), QFileInfo(file).absoluteFilePath());
    QVERIFY2(saved.at(0).at(1).toString().isEmpty(), qPrintable(saved.at(0).at(1).toString()));
    QVERIFY(!panel->isSavingCheckpoints());
  }

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("poslab-tests");
    QCoreApplication::setApplicationName("test_trained_sessions");
    QSettings().clear();
  }

  // Train 3 steps, save with models, change everything, open: the runs stand at step 3 and the
  // next step's loss is bit-identical to what the original runs gave at step 4.
  void savedModelsContinueExactly() {
    QTemporaryDir dir;
    AppShell shell;
    MainWindow& w = shell.window();
    TrainingPanel* panel = w.trainingPanel();
    const QString file = dir.filePath("trained.poslab");
    trainAndSave(shell, tinySetup({"rope", "alibi"}), 3, file);

    // The session lists one checkpoint per run, relative to the session's folder.
    const json j = readJson(file);
    QVERIFY(j.contains("trained_models"));
    QCOMPARE(j["trained_models"].size(), size_t(2));
    QCOMPARE(j["trained_models"][0]["family"].get<std::string>(), std::string("rope"));
    QCOMPARE(j["trained_models"][0]["file"].get<std::string>(),
             std::string("trained.poslab.d/run0-rope.pt"));
    QCOMPARE(j["trained_models"][1]["file"].get<std::string>(),
             std::string("trained.poslab.d/run1-alibi.pt"));
    QCOMPARE(j["trained_models"][1]["step"].get<long long>(), 3LL);
    QVERIFY(QFileInfo(dir.filePath("trained.poslab.d/run0-rope.pt")).size() > 1000);
    QVERIFY(QFileInfo(dir.filePath("trained.poslab.d/run1-alibi.pt")).size() > 1000);
    QCOMPARE(shell.sessions()->currentFile(), QFileInfo(file).absoluteFilePath());

    // Reference: the original runs' step 4.
    stepTo(panel, 4);
    const double rope4 = panel->lastSnapshot(0).loss, alibi4 = panel->lastSnapshot(1).loss;
    QVERIFY(std::isfinite(rope4) && std::isfinite(alibi4));
    QVERIFY(rope4 != alibi4);

    // Change the window: another setup, trained a little, and another explorer family.
    QString error;
    poslab::ExperimentSpec other = tinySetup({"pope"});
    other.base.run.steps = 50;
    QVERIFY2(panel->setExperiment(other, &error), qPrintable(error));
    stepTo(panel, 1);
    QVERIFY(w.parameters()->setFamily("jordan-exact"));

    QVERIFY2(shell.sessions()->openFile(file), qPrintable(shell.sessions()->lastError()));
    QCOMPARE(panel->runCount(), 2);
    QCOMPARE(panel->runFamily(0), std::string("rope"));
    QCOMPARE(panel->runFamily(1), std::string("alibi"));
    QCOMPARE(panel->runStep(0), 3LL);
    QCOMPARE(panel->runStep(1), 3LL);
    QCOMPARE(panel->run(0)->stepCount(), 3LL);
    QCOMPARE(panel->stepCount(), 3LL);
    QCOMPARE(panel->findChild<QLabel*>("stepLabel")->text(), QString("step 3"));
    QCOMPARE(panel->experiment().families, (std::vector<std::string>{"rope", "alibi"}));
    QCOMPARE(panel->curves()[0].loss->dataCount(), 0);
    QVERIFY(!panel->isPlaying());

    // Step continues from the checkpoint (the runs are not rebuilt from step 0).
    stepTo(panel, 4);
    QCOMPARE(panel->lastSnapshot(0).loss, rope4);
    QCOMPARE(panel->lastSnapshot(1).loss, alibi4);
    QCOMPARE(panel->curves()[0].loss->dataCount(), 1);
    QCOMPARE(panel->curves()[0].loss->data()->at(0)->key, 4.0);  // the curve starts at the step

    // Play continues too; Reset goes back to step 0 of the same setup.
    panel->play();
    QTRY_VERIFY_WITH_TIMEOUT(panel->stepCount() >= 6, kWaitMs);
    panel->pause();
    panel->reset();
    QTRY_COMPARE_WITH_TIMEOUT(panel->stepCount(), 0LL, kWaitMs);
    QCOMPARE(panel->runCount(), 2);

    // The plain Save still writes the setup alone.
    const QString plain = dir.filePath("plain.poslab");
    QVERIFY(shell.sessions()->saveFile(plain));
    QVERIFY(!readJson(plain).contains("trained_models"));
  }

  // Missing, corrupt, truncated and foreign checkpoints: refused naming the file; the window
  // keeps its setup, its runs (and their steps) and its explorer values.
  void badCheckpointsChangeNothing() {
    QTemporaryDir dir;
    AppShell shell;
    MainWindow& w = shell.window();
    TrainingPanel* panel = w.trainingPanel();
    const QString file = dir.filePath("s.poslab");
    trainAndSave(shell, tinySetup({"rope"}), 2, file);
    const QString ckpt = dir.filePath("s.poslab.d/run0-rope.pt");
    const QByteArray good = readBytes(ckpt);
    QVERIFY(good.size() > 1000);

    // The current state: another setup with a run at step 1, another explorer family.
    QString error;
    QVERIFY2(panel->setExperiment(tinySetup({"alibi", "pope"}), &error), qPrintable(error));
    stepTo(panel, 1);
    QVERIFY(w.parameters()->setFamily("jordan-exact"));
    const json before = sessionToJson(captureSession(shell.sessionParts()));
    TrainingRun* runBefore = panel->run(0);

    auto refused = [&](const QString& expected) {
      QVERIFY(!shell.sessions()->openFile(file));
      const QString message = shell.sessions()->lastError();
      QVERIFY2(message.contains(expected), qPrintable(message));
      QCOMPARE(sessionToJson(captureSession(shell.sessionParts())), before);
      QCOMPARE(panel->runCount(), 2);
      QCOMPARE(panel->run(0), runBefore);  // the very same runs, still at step 1
      QCOMPARE(panel->runStep(0), 1LL);
      QCOMPARE(panel->run(1)->stepCount(), 1LL);
    };

    writeBytes(ckpt, "this is not a checkpoint");
    refused(ckpt);
    writeBytes(ckpt, good.left(good.size() / 2));  // cut short
    refused(ckpt);
    QVERIFY(QFile::remove(ckpt));
    refused(ckpt);

    // A checkpoint of another setup: the session says d_model 64, the model has 32.
    writeBytes(ckpt, good);
    json j = readJson(file);
    j["training"]["config"]["model"]["d_model"] = 64;
    const QString foreign = dir.filePath("foreign.poslab");
    json k = j;
    k["trained_models"][0]["file"] = "s.poslab.d/run0-rope.pt";
    writeBytes(foreign, QByteArray::fromStdString(k.dump(2)));
    QVERIFY(!shell.sessions()->openFile(foreign));
    QVERIFY2(shell.sessions()->lastError().contains("model.d_model is 32 in the checkpoint"),
             qPrintable(shell.sessions()->lastError()));
    QCOMPARE(sessionToJson(captureSession(shell.sessionParts())), before);
    QCOMPARE(panel->run(0), runBefore);

    // A listed family that is not the setup's.
    json wrongFamily = readJson(file);
    wrongFamily["trained_models"][0]["family"] = "alibi";
    writeBytes(foreign, QByteArray::fromStdString(wrongFamily.dump(2)));
    QVERIFY(!shell.sessions()->openFile(foreign));
    QVERIFY2(shell.sessions()->lastError().contains("trained_models[0].family"),
             qPrintable(shell.sessions()->lastError()));
    QCOMPARE(panel->run(0), runBefore);

    // The good file again: accepted.
    QVERIFY2(shell.sessions()->openFile(file), qPrintable(shell.sessions()->lastError()));
    QCOMPARE(panel->runCount(), 1);
    QCOMPARE(panel->runStep(0), 2LL);

    // The bridge on its own: a run from the checkpoint file, its spec the checkpoint's config.
    auto run = TrainingRun::fromCheckpoint(7, ckpt.toStdString());
    QCOMPARE(run->stepCount(), 2LL);
    QCOMPARE(run->index(), 7);
    QCOMPARE(run->spec().config.model.family, std::string("rope"));
    QCOMPARE(run->spec().config.run.seed, uint64_t(5));
    QSignalSpy snapshots(run.get(), &TrainingRun::snapshot);
    run->stepOnce();
    QTRY_COMPARE_WITH_TIMEOUT(snapshots.count(), 1, kWaitMs);
    QCOMPARE(snapshots.at(0).at(1).value<poslab::Snapshot>().step, 3LL);
    // Its checkpoint save reports back (queued) with the step the file holds.
    QSignalSpy saved(run.get(), &TrainingRun::checkpointSaved);
    const QString copy = dir.filePath("copy.pt");
    QVERIFY(run->saveCheckpoint(copy));
    QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, kWaitMs);
    QCOMPARE(saved.at(0).at(2).toLongLong(), 3LL);
    QVERIFY(saved.at(0).at(3).toString().isEmpty());
    QCOMPARE(TrainingRun::fromCheckpoint(0, copy.toStdString())->stepCount(), 3LL);
    // A folder that does not exist: the failure names the file.
    const QString nowhere = dir.filePath("no/such/folder/x.pt");
    QVERIFY(run->saveCheckpoint(nowhere));
    QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 2, kWaitMs);
    QVERIFY2(saved.at(1).at(3).toString().contains(nowhere),
             qPrintable(saved.at(1).at(3).toString()));
    QVERIFY_THROWS_EXCEPTION(std::exception, TrainingRun::fromCheckpoint(0, "/nonexistent.pt"));
  }

  // Nothing trained yet: the action says so and writes nothing; state strings cannot carry models.
  // After training, the controls change (steps, lr, families): Save with Trained Models still
  // writes the setup the runs were started with (so the session opens again, at the saved step),
  // and the run report describes what ran.
  void savesTheSetupTheRunsWereStartedWith() {
    QTemporaryDir dir;
    AppShell shell;
    MainWindow& w = shell.window();
    TrainingPanel* panel = w.trainingPanel();
    QString error;
    QVERIFY2(panel->setExperiment(tinySetup({"rope"}), &error), qPrintable(error));
    stepTo(panel, 1);
    stepTo(panel, 2);
    panel->findChild<QSpinBox*>("steps")->setValue(200);
    panel->findChild<QDoubleSpinBox*>("lr")->setValue(0.01);
    QVERIFY(panel->selectFamilies({"alibi", "pope"}));
    QCOMPARE(panel->experiment().base.run.steps, 200LL);
    QCOMPARE(panel->runningExperiment().base.run.steps, 1000LL);
    QCOMPARE(panel->runningExperiment().base.optim.lr, tinySetup({}).base.optim.lr);
    QCOMPARE(panel->runningExperiment().families, std::vector<std::string>{"rope"});

    const QString report = dir.filePath("report.md");
    QCOMPARE(writeRunReport(runReportOf(panel), report), QString());
    const json setupJson = readJson(runReportFolder(report) + "/setup.json");
    QCOMPARE(setupJson["config"]["run"]["steps"].get<long long>(), 1000LL);
    QCOMPARE(setupJson["families"], json::array({"rope"}));

    const QString file = dir.filePath("changed.poslab");
    QSignalSpy saved(shell.sessions(), &SessionController::sessionSaved);
    QVERIFY(shell.sessions()->saveFileWithModels(file));
    QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, kWaitMs);
    QVERIFY2(saved.at(0).at(1).toString().isEmpty(), qPrintable(saved.at(0).at(1).toString()));
    const json j = readJson(file);
    QCOMPARE(j["training"]["config"]["run"]["steps"].get<long long>(), 1000LL);
    QCOMPARE(j["training"]["families"], json::array({"rope"}));

    QVERIFY2(panel->setExperiment(tinySetup({"alibi"}), &error), qPrintable(error));
    QVERIFY2(shell.sessions()->openFile(file), qPrintable(shell.sessions()->lastError()));
    QCOMPARE(panel->runCount(), 1);
    QCOMPARE(panel->runFamily(0), std::string("rope"));
    QCOMPARE(panel->runStep(0), 2LL);
    QCOMPARE(panel->experiment().base.run.steps, 1000LL);
    stepTo(panel, 3);  // and it continues
  }

  // A session may list its families in another order than the panel's list: each checkpoint is
  // checked against, and continues, the run of its own family (runs follow the list's order).
  void checkpointsGoToTheirOwnFamilysRun() {
    QTemporaryDir dir;
    AppShell shell;
    MainWindow& w = shell.window();
    TrainingPanel* panel = w.trainingPanel();
    const QString file = dir.filePath("order.poslab");
    trainAndSave(shell, tinySetup({"rope", "alibi"}), 2, file);
    QCOMPARE(panel->runFamily(0), std::string("rope"));
    stepTo(panel, 3);
    const double rope3 = panel->lastSnapshot(0).loss, alibi3 = panel->lastSnapshot(1).loss;
    QVERIFY(rope3 != alibi3);

    json j = readJson(file);
    j["training"]["families"] = {"alibi", "rope"};
    j["trained_models"] = {j["trained_models"][1], j["trained_models"][0]};
    writeBytes(file, QByteArray::fromStdString(j.dump(2)));
    QVERIFY2(shell.sessions()->openFile(file), qPrintable(shell.sessions()->lastError()));
    QCOMPARE(panel->runCount(), 2);
    QCOMPARE(panel->runFamily(0), std::string("rope"));
    QCOMPARE(panel->runFamily(1), std::string("alibi"));
    QCOMPARE(panel->runStep(0), 2LL);
    stepTo(panel, 3);
    QCOMPARE(panel->lastSnapshot(0).loss, rope3);
    QCOMPARE(panel->lastSnapshot(1).loss, alibi3);
  }

  // A checkpoint whose config spells a task option at the task's default (as a CLI config may)
  // belongs to a setup that leaves it out (as the training panel does), and the other way round;
  // a different value is still a different setup.
  void taskOptionsAtTheirDefaultMatchLeftOut() {
    poslab::TrainConfig setup = tinySetup({"rope"}).base;
    setup.model.family = "rope";
    poslab::TrainConfig checkpoint = setup;
    checkpoint.task.options["alphabet"] = 16;  // as set
    checkpoint.task.options.erase("max_offset");
    setup.task.options["max_offset"] = 8;  // the default, spelt out
    checkpoint.task.options["max_offset"] = 8;
    QVERIFY2(trainConfigMismatch(setup, checkpoint).isEmpty(),
             qPrintable(trainConfigMismatch(setup, checkpoint)));
    setup.task.options.erase("max_offset");
    QVERIFY2(trainConfigMismatch(setup, checkpoint).isEmpty(),
             qPrintable(trainConfigMismatch(setup, checkpoint)));
    QVERIFY2(trainConfigMismatch(checkpoint, setup).isEmpty(),
             qPrintable(trainConfigMismatch(checkpoint, setup)));
    checkpoint.task.options["max_offset"] = 3;
    const QString why = trainConfigMismatch(setup, checkpoint);
    QVERIFY2(why.contains("task.options") && why.contains("max_offset"), qPrintable(why));
  }

  void nothingToSave() {
    QTemporaryDir dir;
    AppShell shell;
    MainWindow& w = shell.window();
    const QString file = dir.filePath("empty.poslab");
    QVERIFY(!shell.sessions()->saveFileWithModels(file));
    QVERIFY2(shell.sessions()->lastError().contains("No training run has taken a step"),
             qPrintable(shell.sessions()->lastError()));
    QVERIFY(!QFileInfo::exists(file));
    QVERIFY(!QFileInfo::exists(file + ".d"));
    QAction* action = shell.actions().saveSessionWithModels;
    QVERIFY(action);
    QCOMPARE(action->shortcut(), QKeySequence("Ctrl+Alt+S"));
    QVERIFY(shell.actions().file->actions().contains(action));

    SessionState state = captureSession(shell.sessionParts());
    state.checkpoints.push_back({state.training.families.front(), "x.pt", 1});
    const json before = sessionToJson(captureSession(shell.sessionParts()));
    QVERIFY(!shell.sessions()->applyStateString(encodeStateString(state)));
    QVERIFY(shell.sessions()->lastError().contains("trained models"));
    QCOMPARE(sessionToJson(captureSession(shell.sessionParts())), before);
  }
};

QTEST_MAIN(TestTrainedSessions)
#include "test_trained_sessions.moc"
