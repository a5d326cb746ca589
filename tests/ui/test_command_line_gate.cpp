// Issue 32: what the command line (`poslab --session/--preset/--family/--lesson`, through
// command_line_start.h) and a lesson's steps load goes through the window's one gate, as File >
// Open Session does: a step that names no module applies at once (a bad one is refused before
// the window shows); one that names a module waits for the window, says first, once, that loading
// runs code, checks the module off the UI thread, and on a failure shows one line and leaves the
// window as it was. A session's trained models are read off the UI thread too: the window keeps
// answering while they load. The modules come from the torchscript.write_modules fixture
// (POSLAB_TS_DIR).
#include <QAbstractButton>
#include <QComboBox>
#include <QDir>
#include <QImage>
#include <QMessageBox>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <algorithm>

#include "app_shell.h"
#include "bridge/loaded_families.h"
#include "code_notice.h"
#include "command_line_start.h"
#include "explorer/parameter_panel.h"
#include "file_hash.h"
#include "lessons/lesson_player.h"
#include "main_window.h"
#include "menus/file_menu.h"
#include "panel_actions.h"
#include "screenshot.h"
#include "session/family_file_gate.h"
#include "session/session_io.h"
#include "test_files.h"
#include "tiny_setups.h"
#include "training/training_panel.h"

using namespace poslab::ui;

namespace {
constexpr int kWaitMs = 60000;

QString module(const char* name) {
  return QDir(qEnvironmentVariable("POSLAB_TS_DIR")).absoluteFilePath(name);
}

std::unique_ptr<AppShell> newShell() {
  auto shell = std::make_unique<AppShell>();
  shell->window().resize(1280, 860);
  return shell;
}

// `shell`'s state with the explorer on the family file `id`, saved with its content hash.
SessionState stateWithFamily(const AppShell& shell, const QString& id, const QString& hash) {
  SessionState s = captureSession(shell.sessionParts());
  s.family = id.toStdString();
  s.values.clear();
  s.familyFiles = {{id.toStdString(), hash.toStdString()}};
  return s;
}

std::string shownFamily(const AppShell& shell) {
  return shell.window().parameters()->familyId();
}
}  // namespace

class TestCommandLineGate : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

  QString freshCopy(const char* name, const QString& as) {
    const QString path = dir_.filePath(as);
    QFile::remove(path);
    return QFile::copy(module(name), path) ? path : QString();
  }
  QString sessionWith(const AppShell& shell, const char* moduleName, const QString& as) {
    const QString file = freshCopy(moduleName, as + ".pt");
    const QString session = dir_.filePath(as + ".poslab");
    QString error;
    if (!saveSessionFile(session, stateWithFamily(shell, "file:" + file, test::fnv1a(file)),
                         &error))
      return {};
    return session;
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY2(QFile::exists(module("damped.pt")), "POSLAB_TS_DIR has no damped.pt");
    QVERIFY(dir_.isValid());
  }

  // `poslab --session FILE` with a family file: nothing before the window; then the notice,
  // Cancel changes nothing; Load checks the module off the UI thread and opens the session.
  void sessionWaitsForTheWindowAndTheNotice() {
    for (bool agree : {false, true}) {
      auto shell = newShell();
      const QString session =
          sessionWith(*shell, "damped.pt", agree ? "cli_agreed" : "cli_declined");
      const std::string before = shownFamily(*shell);
      CommandLineRequest request;
      request.session = session;
      request.view = WindowView::Attention;  // --view: applied after the session
      CommandLineStart start(*shell, request);
      QString error;
      QVERIFY2(start.startNow(&error), qPrintable(error));
      QCOMPARE(shownFamily(*shell), before);  // no module ran before the window
      QVERIFY(!test::visibleCodeNotice(shell->window()));
      shell->window().show();
      QSignalSpy finished(&start, &CommandLineStart::finished);
      start.continueInWindow();
      QMessageBox* notice = test::visibleCodeNotice(shell->window());
      QVERIFY2(notice, "no notice before the session's module ran");
      test::answerCodeNotice(notice, agree);
      if (agree) {
        QVERIFY(shell->familyGate()->busy());  // checking, on its own thread
        QCOMPARE(shownFamily(*shell), before);
      }
      QVERIFY(finished.count() == 1 || finished.wait(kWaitMs));
      QCOMPARE(finished.at(0).at(0).toBool(), agree);
      if (agree) {
        QCOMPARE(QString::fromStdString(shownFamily(*shell)),
                 "file:" + dir_.filePath("cli_agreed.pt"));
        QCOMPARE(shell->window().currentView(), WindowView::Attention);
      } else {
        QVERIFY(finished.at(0).at(1).toString().isEmpty());  // declined: no error
        QCOMPARE(shownFamily(*shell), before);
        QVERIFY(shell->window().currentView() != WindowView::Attention);  // the rest not applied
      }
    }
  }

  // A module that fails its checks: one line naming the session, the field and the file; the
  // window as it was.
  void failingModuleIsOneLine() {
    auto shell = newShell();
    const QString session = sessionWith(*shell, "bad_nan.pt", "cli_bad");
    const std::string before = shownFamily(*shell);
    shell->familyGate()->setAgreed();
    CommandLineRequest request;
    request.session = session;
    CommandLineStart start(*shell, request);
    QString error;
    QVERIFY(start.startNow(&error));
    shell->window().show();
    QSignalSpy finished(&start, &CommandLineStart::finished);
    start.continueInWindow();
    QVERIFY(finished.count() == 1 || finished.wait(kWaitMs));
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    const QString line = finished.at(0).at(1).toString();
    QVERIFY2(line.contains(session) && line.contains("family_files[0]") &&
                 line.contains("cli_bad.pt") && !line.contains('\n'),
             qPrintable(line));
    QCOMPARE(shownFamily(*shell), before);
    for (QMessageBox* box : shell->window().findChildren<QMessageBox*>()) box->close();
  }

  // A session that names no module applies at once, before the window; a bad one is refused
  // there (the program exits 2 without a window).
  void plainSessionAppliesAtOnce() {
    auto shell = newShell();
    SessionState state = captureSession(shell->sessionParts());
    state.family = "alibi";
    state.values.clear();
    const QString session = dir_.filePath("plain.poslab");
    QString error;
    QVERIFY(saveSessionFile(session, state, &error));
    CommandLineRequest request;
    request.session = session;
    CommandLineStart start(*shell, request);
    QVERIFY2(start.startNow(&error), qPrintable(error));
    QCOMPARE(shownFamily(*shell), std::string("alibi"));

    writeText(dir_.filePath("broken.poslab"), "{ not json");
    auto other = newShell();
    request.session = dir_.filePath("broken.poslab");
    CommandLineStart refused(*other, request);
    QVERIFY(!refused.startNow(&error));
    QVERIFY2(error.contains("broken.poslab") && error.contains("not valid JSON"),
             qPrintable(error));
  }

  // `--preset FILE` naming a family file, then `--family file:PATH.pt`: one notice for both.
  void presetAndFamilyThroughTheGate() {
    auto shell = newShell();
    const QString presetFamily = freshCopy("damped.pt", "cli_preset.pt");
    const std::string presetId = "file:" + presetFamily.toStdString();
    const QString preset = dir_.filePath("cli_preset.json");
    writeText(preset,
              QByteArray::fromStdString(
                  poslab::experimentToJson(test::tinyIndirectSetup({presetId, "rope"})).dump()));
    const QString familyFile = freshCopy("linear_bias.pt", "cli_family.pt");
    CommandLineRequest request;
    request.preset = preset;
    request.family = "file:" + familyFile;
    CommandLineStart start(*shell, request);
    QString error;
    QVERIFY2(start.startNow(&error), qPrintable(error));
    QVERIFY(!findFamily(presetId));
    shell->window().show();
    QSignalSpy finished(&start, &CommandLineStart::finished);
    start.continueInWindow();
    QMessageBox* notice = test::visibleCodeNotice(shell->window());
    QVERIFY(notice);
    test::answerCodeNotice(notice, true);
    QVERIFY(finished.wait(kWaitMs));
    QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
    // One notice for both modules: a second one, unanswered here, would have stopped the steps.
    QVERIFY(!test::visibleCodeNotice(shell->window()));
    TrainingPanel* panel = shell->window().trainingPanel();
    std::vector<std::string> families = panel->experiment().families;
    std::sort(families.begin(), families.end());
    QCOMPARE(families, (std::vector<std::string>{presetId, "rope"}));
    QVERIFY(panel->isPlaying());  // a preset plays, as from the Presets menu
    panel->pause();
    QCOMPARE(QString::fromStdString(shownFamily(*shell)), "file:" + familyFile);
  }

  // A lesson whose steps name a family file: its modules load through the gate when it opens
  // (Cancel: not opened), so that no step runs module code on the UI thread.
  void lessonStepsThroughTheGate() {
    auto shell = newShell();
    shell->window().show();
    const QString file = freshCopy("damped.pt", "lesson_family.pt");
    const QString id = "file:" + file;
    const QString lesson = dir_.filePath("own.json");
    writeText(lesson, QString::fromUtf8(R"({"format": "poslab-lesson-1", "title": "Own", "steps": [
      {"title": "a", "text": "x", "action": "y", "state": {"explorer": {"family": "rope"}}},
      {"title": "b", "text": "x", "action": "y",
       "state": {"tab": "kernel", "explorer": {"family": "%1", "values": {"gamma": 0.02}}}}]})")
                          .arg(id)
                          .toUtf8());
    LessonPlayer* player = shell->lessons();
    QString seen;
    bool opened = false;
    int answers = 0;
    auto done = [&](bool ok, const QString& error) {
      ++answers;
      opened = ok;
      seen = error;
    };
    player->openFileInBackground(lesson, 1, done);
    QMessageBox* notice = test::visibleCodeNotice(shell->window());
    QVERIFY2(notice, "no notice before the lesson's module ran");
    test::answerCodeNotice(notice, false);
    QTRY_COMPARE(answers, 1);
    QVERIFY(!opened && seen.isEmpty() && !player->isOpen());
    QVERIFY(!findFamily(id.toStdString()));

    player->openFileInBackground(lesson, 1, done);
    QTRY_VERIFY(notice = test::visibleCodeNotice(shell->window()));
    test::answerCodeNotice(notice, true);
    QVERIFY(shell->familyGate()->busy());
    QVERIFY(!player->isOpen());
    QTRY_COMPARE_WITH_TIMEOUT(answers, 2, kWaitMs);
    QVERIFY2(opened, qPrintable(seen));
    QCOMPARE(player->stepIndex(), 1);
    QCOMPARE(QString::fromStdString(shownFamily(*shell)), id);
    QCOMPARE(shell->window().parameters()->values().at("gamma"), 0.02);
    QVERIFY(player->back());  // steps apply with the module loaded: no gate, no notice
    QCOMPARE(shownFamily(*shell), std::string("rope"));
    QVERIFY(player->next());
    QCOMPARE(QString::fromStdString(shownFamily(*shell)), id);
  }

  // A session with trained models: their checkpoints are read on a thread of their own; the
  // window does not change (and keeps answering) until they are read, then opens at their steps.
  void trainedModelsLoadOffTheUiThread() {
    auto trainer = newShell();
    TrainingPanel* panel = trainer->window().trainingPanel();
    test::loadExperiment(*panel, test::tinyIndirectSetup({"rope", "alibi"}));
    test::clickButton(panel, "stepButton");
    QTRY_VERIFY_WITH_TIMEOUT(
        panel->runCount() == 2 && panel->runStep(0) >= 1 && panel->runStep(1) >= 1, kWaitMs);
    const QString session = dir_.filePath("models.poslab");
    QSignalSpy saved(trainer->sessions(), &SessionController::sessionSaved);
    QVERIFY(trainer->sessions()->saveFileWithModels(session));
    QVERIFY(saved.count() == 1 || saved.wait(kWaitMs));
    QVERIFY2(saved.at(0).at(1).toString().isEmpty(), qPrintable(saved.at(0).at(1).toString()));
    trainer.reset();

    auto shell = newShell();
    shell->window().show();
    TrainingPanel* opened = shell->window().trainingPanel();
    bool ok = false;
    int answers = 0;
    shell->sessions()->openInBackground(session, [&](bool good, const QString&) {
      ok = good;
      ++answers;
    });
    // No module to load: the gate went on at once, and the checkpoints are being read.
    QVERIFY(shell->sessions()->isOpening());
    QCOMPARE(answers, 0);
    QCOMPARE(opened->runCount(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(answers, 1, kWaitMs);
    QVERIFY2(ok, qPrintable(shell->sessions()->lastError()));
    QCOMPARE(opened->runCount(), 2);
    QVERIFY(opened->runStep(0) >= 1 && opened->runStep(1) >= 1);
    QVERIFY(!shell->sessions()->isOpening());

    // A checkpoint that is gone: one line naming it, nothing changed.
    QVERIFY(QFile::remove(dir_.filePath("models.poslab.d/run1-alibi.pt")));
    auto other = newShell();
    other->window().show();
    QString line;
    answers = 0;
    other->sessions()->openInBackground(session, [&](bool good, const QString& error) {
      ok = good;
      line = error;
      ++answers;
    });
    QTRY_COMPARE_WITH_TIMEOUT(answers, 1, kWaitMs);
    QVERIFY(!ok);
    QVERIFY2(line.contains("run1-alibi.pt") && !line.contains('\n'), qPrintable(line));
    QCOMPARE(other->window().trainingPanel()->runCount(), 0);
    for (QMessageBox* box : other->window().findChildren<QMessageBox*>()) box->close();
  }

  // `poslab --screenshot --family file:PATH.pt --set gamma=...` goes the command line's way: the
  // module loads through the gate, off the UI thread, so an event posted before the call is
  // handled before the family arrives (a load on the UI thread, as the screenshot did, would add
  // it first); then the shot shows the family with the value set. POSLAB_ENCODING_SHOTS keeps it.
  void screenshotLoadsItsModuleOffTheUiThread() {
    const QString path = freshCopy("damped.pt", "shot_family.pt");
    QVERIFY(!path.isEmpty());
    const QString id = "file:" + path;
    QStringList order;
    const QMetaObject::Connection added =
        connect(&loadedFamilies(), &LoadedFamilies::familyAdded, this, [&](const QString& f) {
          if (f == id) order << "family added";
        });
    QTimer::singleShot(0, this, [&] { order << "event handled"; });
    ScreenshotRequest req;
    const QString shots = qEnvironmentVariable("POSLAB_ENCODING_SHOTS", dir_.path());
    req.file = QDir(shots).filePath("screenshot-file-family.png");
    req.view = WindowView::Kernel;
    req.family = id;
    req.sets = {{"gamma", 0.05}};
    QCOMPARE(takeScreenshot(req), QString());
    disconnect(added);
    QCOMPARE(order, (QStringList{"event handled", "family added"}));
    QVERIFY(!QImage(req.file).isNull());

    // A value the family refuses: one line, exit 2 in `poslab`, no file.
    req.file = dir_.filePath("refused.png");
    req.sets = {{"gamma", 99}};
    const QString refused = takeScreenshot(req);
    QVERIFY2(refused.contains("gamma") && !refused.contains('\n'), qPrintable(refused));
    QVERIFY(!QFile::exists(req.file));
  }
};

QTEST_MAIN(TestCommandLineGate)
#include "test_command_line_gate.moc"
