// Presets, sessions and the state string through the window: a session saved, the window
// changed and the session opened again gives back every value (parameters, view settings, tab,
// training setup); malformed sessions and state strings are refused with a message naming the
// problem and leave every value as it was; the Presets menu lists every preset and loads one.
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <set>

#include "app_shell.h"
#include "explorer/attention_view.h"
#include "explorer/kernel_view.h"
#include "explorer/norms_view.h"
#include "explorer/parameter_panel.h"
#include "explorer/probe_view.h"
#include "main_window.h"
#include "menus/file_menu.h"
#include "menus/presets_menu.h"
#include "session/session_io.h"
#include "session/session_state.h"
#include "test_files.h"
#include "train/preset.h"
#include "training/family_start_form.h"
#include "training/training_panel.h"
#include "training/training_setup_form.h"
#include "undo/parameter_undo.h"

using namespace poslab::ui;
using nlohmann::json;

namespace {

json stateJson(const AppShell& shell) {
  return sessionToJson(captureSession(shell.sessionParts()));
}

// A training setup unlike the panel's default in every field the panel shows and some it does not.
poslab::ExperimentSpec customSetup() {
  poslab::ExperimentSpec e;
  e.name = "custom";
  e.families = {"pope", "rope", "alibi"};
  e.seeds = {7};
  e.base.task.id = "indirect-indexing";
  e.base.task.options = {{"alphabet", 64}};  // indirect-indexing: lengths up to alphabet + 3
  e.base.task.trainLength = 24;
  e.base.model.dModel = 32;
  e.base.model.heads = 2;
  e.base.optim.lr = 0.002;
  e.base.optim.batch = 16;
  e.base.optim.warmup = 5;
  e.base.run.steps = 123;
  e.base.run.seed = 7;
  e.base.run.evalLengths = {24, 48};
  e.familyParams["pope"] = {{"delta", -0.5}};  // a parameter PoPE has: the setup trains
  return e;
}

QMessageBox* errorBox(const MainWindow& w) {
  return w.findChild<QMessageBox*>("sessionError");
}
void closeErrorBoxes(MainWindow& w) {
  for (auto* b : w.findChildren<QMessageBox*>()) delete b;
}

}  // namespace

class TestSessions : public QObject {
  Q_OBJECT

  // Puts the window into a state unlike its defaults everywhere a session reaches.
  static void makeCustom(MainWindow& w) {
    QVERIFY(w.parameters()->setFamily("jordan-exact"));
    QVERIFY(w.parameters()->setValue("gamma", 0.0123));
    QVERIFY(w.parameters()->setValue("omega", 0.25));
    auto* lags = w.kernelView()->findChild<QComboBox*>("lagCount");
    lags->setCurrentIndex(lags->findData(1024));
    w.kernelView()->findChild<QCheckBox*>("logLag")->setChecked(true);
    auto* T = w.attentionView()->findChild<QComboBox*>("attentionT");
    T->setCurrentIndex(T->findData(256));
    w.attentionView()->findChild<QCheckBox*>("logColor")->setChecked(false);
    auto* maxPos = w.normsView()->findChild<QComboBox*>("maxPos");
    maxPos->setCurrentIndex(maxPos->findData(4096));
    w.probeView()->findChild<QComboBox*>("probeSet")->setCurrentIndex(1);
    QString error;
    QVERIFY2(w.trainingPanel()->setExperiment(customSetup(), &error), qPrintable(error));
    w.showView(WindowView::Norms);
  }

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // QSettings go to a test location
    QCoreApplication::setOrganizationName("poslab-tests");
    QCoreApplication::setApplicationName("test_sessions");
    QSettings().clear();
  }

  void sessionRoundTrip() {
    QTemporaryDir dir;
    AppShell shell;
    MainWindow& w = shell.window();
    makeCustom(w);
    const json saved = stateJson(shell);
    const QString file = dir.filePath("a.poslab");
    QVERIFY(shell.sessions()->saveFile(file));
    QCOMPARE(shell.sessions()->currentFile(), file);
    QVERIFY(w.windowTitle().startsWith("a.poslab"));

    // Change everything.
    QVERIFY(w.parameters()->setFamily("rope"));
    w.kernelView()->findChild<QComboBox*>("lagCount")->setCurrentIndex(0);
    w.kernelView()->findChild<QCheckBox*>("logLag")->setChecked(false);
    w.attentionView()->findChild<QCheckBox*>("logColor")->setChecked(true);
    w.probeView()->findChild<QComboBox*>("probeSet")->setCurrentIndex(0);
    poslab::ExperimentSpec other;
    other.families = {"rope"};
    other.base.task.id = "kernel-lm";
    QString error;
    QVERIFY(w.trainingPanel()->setExperiment(other, &error));
    w.showView(WindowView::Kernel);
    QVERIFY(stateJson(shell) != saved);

    QVERIFY2(shell.sessions()->openFile(file), qPrintable(shell.sessions()->lastError()));
    QCOMPARE(stateJson(shell).dump(), saved.dump());
    // The values themselves, not only "equal to what was captured".
    QCOMPARE(w.parameters()->familyId(), std::string("jordan-exact"));
    QCOMPARE(w.parameters()->values().at("gamma"), 0.0123);
    QCOMPARE(w.parameters()->values().at("omega"), 0.25);
    QCOMPARE(w.kernelView()->findChild<QComboBox*>("lagCount")->currentData().toInt(), 1024);
    QVERIFY(w.kernelView()->findChild<QCheckBox*>("logLag")->isChecked());
    QCOMPARE(w.attentionView()->findChild<QComboBox*>("attentionT")->currentData().toInt(), 256);
    QVERIFY(!w.attentionView()->findChild<QCheckBox*>("logColor")->isChecked());
    QCOMPARE(w.normsView()->findChild<QComboBox*>("maxPos")->currentData().toInt(), 4096);
    QCOMPARE(w.probeView()->findChild<QComboBox*>("probeSet")->currentIndex(), 1);
    QCOMPARE(w.currentView(), WindowView::Norms);
    const poslab::ExperimentSpec e = w.trainingPanel()->experiment();
    // The panel lists its families in catalog order.
    QCOMPARE(std::set<std::string>(e.families.begin(), e.families.end()),
             (std::set<std::string>{"pope", "rope", "alibi"}));
    QCOMPARE(e.base.task.id, std::string("indirect-indexing"));
    QCOMPARE(e.base.task.options.at("alphabet"), 64.0);
    QCOMPARE(e.base.run.steps, 123LL);
    QCOMPARE(e.base.optim.lr, 0.002);
    QCOMPARE(e.base.optim.batch, 16LL);
    QCOMPARE(e.base.model.dModel, 32LL);
    QCOMPARE(e.base.run.evalLengths, (std::vector<long long>{24, 48}));
    QCOMPARE(e.seeds, (std::vector<uint64_t>{7}));
    QCOMPARE(e.familyParams.at("pope").at("delta"), -0.5);

    // The file is the documented format.
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const json j = json::parse(f.readAll().toStdString());
    QCOMPARE(j.at("format").get<std::string>(), std::string("poslab-session-1"));
    QCOMPARE(j.at("tab").get<std::string>(), std::string("norms"));
    QCOMPARE(j.at("training").at("config").at("run").at("steps").get<long long>(), 123LL);
    QCOMPARE(shell.sessions()->recentFiles().value(0), file);

    // Loading is one Edit > Undo step for the explorer's parameters.
    auto* undo = w.findChild<ParameterUndo*>();
    QVERIFY(undo);
    undo->stack()->undo();
    QCOMPARE(w.parameters()->familyId(), std::string("rope"));
    undo->stack()->redo();
    QCOMPARE(w.parameters()->familyId(), std::string("jordan-exact"));
    QCOMPARE(w.parameters()->values().at("gamma"), 0.0123);
  }

  void malformedSessionChangesNothing_data() {
    QTest::addColumn<QString>("mutation");
    QTest::addColumn<QString>("expected");  // in the message, besides the file name
    QTest::newRow("not json") << "syntax"
                              << "not valid JSON at line 3";
    QTest::newRow("format tag") << "format"
                                << "field 'format'";
    QTest::newRow("unknown family") << "family"
                                    << "explorer.family";
    QTest::newRow("parameter out of range") << "range"
                                            << "explorer.values.gamma";
    QTest::newRow("unknown parameter") << "param"
                                       << "has no parameter 'zeta'";
    QTest::newRow("wrong type") << "type"
                                << "training.config.run.steps";
    QTest::newRow("unknown training family") << "trainfamily"
                                             << "training.families";
    QTest::newRow("unknown field") << "field"
                                   << "views.kernel.lagz";
    QTest::newRow("view setting") << "lags"
                                  << "views.kernel.lags";
    QTest::newRow("missing file") << "missing"
                                  << "does not exist";
    // Values the training panel's controls would clamp or round are refused, naming the field.
    QTest::newRow("d_model beyond the panel")
        << "dmodel"
        << "field 'training.config.model.d_model' = 8192 is out of range (allowed [4, 4096])";
    QTest::newRow("position lr beyond the panel")
        << "poslr"
        << "field 'training.config.optim.position_lr_scale' = 1e+06 is out of range (allowed "
           "[0.001, 100000])";
    QTest::newRow("misspelt config key")
        << "dmodeltypo"
        << "field 'training.config.model.dmodel' is not a known field (known here: family";
    QTest::newRow("misspelt variant key") << "kernal"
                                          << "field 'training.variants[0].kernal'";
    QTest::newRow("eval sequences 0") << "evalseq"
                                      << "field 'training.config.run.eval_sequences' = 0";
    QTest::newRow("lr with too many digits")
        << "lrdigits"
        << "field 'training.config.optim.lr' = 1.2345678901234568e-05 has more digits";
    QTest::newRow("integer task option not an integer")
        << "alphabet"
        << "field 'training.config.task.options.alphabet' = 12.5 is not an integer";
    // Issue 17 s3: sessions that cannot train are refused at load (checkTrainable), naming the
    // field, not at Play.
    QTest::newRow("s3 unknown kernel")
        << "kernel"
        << "field 'training.config.task.kernel' = \"bogus\" is not a kernel";
    QTest::newRow("s3 unknown family parameter")
        << "familyparam"
        << "field 'training.family_params.rope.zeta': family rope has no";
    QTest::newRow("s3 missing text file")
        << "textfile"
        << "field 'training.config.task.text_file': text file '/nonexistent/";
    // The Debian LibTorch this project builds with has no CUDA.
    QTest::newRow("s3 device cuda")
        << "cuda"
        << "field 'training.config.run.device' = \"cuda\": this LibTorch build";
    QTest::newRow("s3 eval length 1e7")
        << "eval1e7"
        << "field 'training.config.run.eval_lengths[1]' = 1e+07 is out of range";
    QTest::newRow("s3 eval length the task cannot generate")
        << "evaltask"
        << "field 'training.config.run.eval_lengths[1]' = 100000: task";
    QTest::newRow("s3 beta1 2") << "beta1"
                                << "field 'training.config.optim.beta1' = 2 is out of range";
    // Issue 17 s2: runaways the GUI must refuse like the CLI.
    QTest::newRow("s2 train_length 1e9")
        << "trainlength"
        << "field 'training.config.task.train_length' = 1e+09 is out of range";
    QTest::newRow("s2 steps 2^63-1")
        << "steps"
        << "field 'training.config.run.steps' = 9223372036854775807 is out of range";
    // Issue 17 s5: a top-level array was "field '' must be a JSON object".
    QTest::newRow("s5 top-level array") << "array"
                                        << "the document must be a JSON object, not an array";
  }
  void malformedSessionChangesNothing() {
    QFETCH(QString, mutation);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    AppShell shell;
    MainWindow& w = shell.window();
    makeCustom(w);
    const json before = stateJson(shell);

    // Otherwise valid sessions that differ everywhere (tab, family, training), so that a
    // partial apply would show.
    json s = before;
    s["tab"] = "attention";
    s["explorer"]["family"] = "jordan-exact";
    s["explorer"]["values"]["gamma"] = 0.5;
    s["training"]["families"] = {"rope"};
    s["training"]["config"]["run"]["steps"] = 77;
    QByteArray text;
    if (mutation == "format") s["format"] = "poslab-session-0";
    if (mutation == "family") s["explorer"]["family"] = "no-such-family";
    if (mutation == "range") s["explorer"]["values"]["gamma"] = 1e9;
    if (mutation == "param") s["explorer"]["values"]["zeta"] = 1;
    if (mutation == "type") s["training"]["config"]["run"]["steps"] = "many";
    if (mutation == "trainfamily")
      s["training"]["families"] = {"rope", "ropee"};  // ("nope" is NoPE)
    if (mutation == "field") s["views"]["kernel"]["lagz"] = 5;
    if (mutation == "lags") s["views"]["kernel"]["lags"] = 1000;
    json& model = s["training"]["config"]["model"];
    if (mutation == "dmodel") model["d_model"] = 8192;
    if (mutation == "dmodeltypo") model["dmodel"] = 32;
    if (mutation == "kernal")
      s["training"]["variants"] = json::array({json::object({{"kernal", "second_jet"}})});
    if (mutation == "poslr") s["training"]["config"]["optim"]["position_lr_scale"] = 1e6;
    if (mutation == "evalseq") s["training"]["config"]["run"]["eval_sequences"] = 0;
    if (mutation == "lrdigits") s["training"]["config"]["optim"]["lr"] = 1.2345678901234567e-5;
    if (mutation == "alphabet") s["training"]["config"]["task"]["options"]["alphabet"] = 12.5;
    json& task = s["training"]["config"]["task"];
    if (mutation == "kernel") task = {{"id", "kernel-lm"}, {"kernel", "bogus"}};
    if (mutation == "familyparam") s["training"]["family_params"] = {{"rope", {{"zeta", 1}}}};
    if (mutation == "textfile") task = {{"id", "byte-lm"}, {"text_file", "/nonexistent/a.txt"}};
    json& run = s["training"]["config"]["run"];
    if (mutation == "cuda") run["device"] = "cuda";
    if (mutation == "eval1e7") run["eval_lengths"] = {24, 1e7};
    if (mutation == "evaltask") run["eval_lengths"] = {24, 100000};
    if (mutation == "trainlength") task["train_length"] = 1e9;
    if (mutation == "steps") run["steps"] = 9223372036854775807LL;
    if (mutation == "beta1") s["training"]["config"]["optim"]["beta1"] = 2;
    text = QByteArray::fromStdString(s.dump(2));
    if (mutation == "array") text = "[1, 2]";
    if (mutation == "syntax") text = "{\n  \"format\": \"poslab-session-1\",\n  \"tab\": kernel\n}";
    const QString file = dir.filePath("bad.poslab");
    if (mutation != "missing") writeText(file, text);

    QVERIFY(!shell.sessions()->openFile(file));
    const QString error = shell.sessions()->lastError();
    QVERIFY2(error.contains(file), qPrintable(error));
    QVERIFY2(error.contains(expected), qPrintable(error));
    QMessageBox* box = errorBox(w);
    QVERIFY(box);
    QVERIFY(box->isVisible());
    QVERIFY2(box->text().contains(expected), qPrintable(box->text()));
    QCOMPARE(stateJson(shell).dump(), before.dump());
    QCOMPARE(w.currentView(), WindowView::Norms);
    QCOMPARE(w.parameters()->values().at("gamma"), 0.0123);
    QCOMPARE(w.trainingPanel()->experiment().base.run.steps, 123LL);
    QVERIFY(shell.sessions()->currentFile().isEmpty());
    closeErrorBoxes(w);

    // The same file, repaired, opens.
    if (mutation != "syntax" && mutation != "missing" && mutation != "array") {
      json good = s;
      good["format"] = "poslab-session-1";
      good["explorer"]["family"] = "jordan-exact";
      good["explorer"]["values"].erase("zeta");
      good["explorer"]["values"]["gamma"] = 0.5;
      good["training"]["config"]["run"]["steps"] = 77;
      good["training"]["families"] = {"rope"};
      good["views"]["kernel"].erase("lagz");
      good["training"].erase("variants");
      good["training"].erase("family_params");
      good["views"]["kernel"]["lags"] = 1024;
      good["training"]["config"] = before["training"]["config"];
      good["training"]["config"]["run"]["steps"] = 77;
      writeText(file, QByteArray::fromStdString(good.dump()));
      QVERIFY2(shell.sessions()->openFile(file), qPrintable(shell.sessions()->lastError()));
      QCOMPARE(w.currentView(), WindowView::Attention);
      QCOMPARE(w.parameters()->values().at("gamma"), 0.5);
      QCOMPARE(w.trainingPanel()->experiment().base.run.steps, 77LL);
    }
  }

  // Training values the controls once rounded (lr 2.5e-5 to 5 decimals, a position-lr scale to
  // 3, a real task option to 6 digits) open exactly as written and save back unchanged.
  void trainingValuesRoundTripExactly() {
    QTemporaryDir dir;
    AppShell shell;
    MainWindow& w = shell.window();
    json s = stateJson(shell);
    json& config = s["training"]["config"];
    config["task"]["id"] = "kernel-lm";
    config["task"]["options"] = {{"omega", 0.031622776601683794}};
    config["optim"]["lr"] = 2.5e-5;
    config["optim"]["position_lr_scale"] = 0.0125;
    const QString file = dir.filePath("exact.poslab");
    writeText(file, QByteArray::fromStdString(s.dump(2)));
    QVERIFY2(shell.sessions()->openFile(file), qPrintable(shell.sessions()->lastError()));
    const poslab::ExperimentSpec e = w.trainingPanel()->experiment();
    QVERIFY2(e.base.optim.lr == 2.5e-5, qPrintable(QString::number(e.base.optim.lr, 'g', 17)));
    QVERIFY(e.base.optim.positionLrScale == 0.0125);
    QVERIFY(e.base.task.options.at("omega") == 0.031622776601683794);
    QCOMPARE(w.trainingPanel()->findChild<QDoubleSpinBox*>("lr")->text(), QString("2.5e-05"));
    const json back = stateJson(shell)["training"]["config"];
    QCOMPARE(back["optim"]["lr"].dump(), json(2.5e-5).dump());
    QCOMPARE(back["optim"]["position_lr_scale"].dump(), json(0.0125).dump());
    QCOMPARE(back["task"]["options"].dump(), config["task"]["options"].dump());
  }

  void stateStringRoundTrip() {
    AppShell shellA;
    MainWindow& a = shellA.window();
    makeCustom(a);
    const QString s = shellA.sessions()->stateString();
    QVERIFY(s.startsWith("poslab1."));
    QVERIFY(!s.contains('\n') && !s.contains('=') && !s.contains('+') && !s.contains('/'));
    QVERIFY2(s.size() < 2000, qPrintable(QString::number(s.size())));

    AppShell shellB;

    MainWindow& b = shellB.window();
    QVERIFY(stateJson(shellB) != stateJson(shellA));
    // Through the clipboard, as a user does it.
    shellA.sessions()->copyState();
    QCOMPARE(QApplication::clipboard()->text(), s);
    shellB.sessions()->pasteState();
    QVERIFY2(shellB.sessions()->lastError().isEmpty(), qPrintable(shellB.sessions()->lastError()));
    QCOMPARE(stateJson(shellB).dump(), stateJson(shellA).dump());
    QCOMPARE(b.parameters()->values().at("gamma"), 0.0123);
    QCOMPARE(b.trainingPanel()->experiment().base.run.steps, 123LL);
    QCOMPARE(b.currentView(), WindowView::Norms);
  }

  void badStateStringChangesNothing_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("empty") << ""
                           << "no text";
    QTest::newRow("prose") << "hello world"
                           << "not a PosLab state string";
    QTest::newRow("other version") << "poslab9.abc"
                                   << "another PosLab version";
    QTest::newRow("not base64") << "poslab1.!!!*"
                                << "damaged";
    QTest::newRow("not compressed") << "poslab1.aGVsbG8gd29ybGQ"
                                    << "damaged";
  }
  void badStateStringChangesNothing() {
    QFETCH(QString, text);
    QFETCH(QString, expected);
    AppShell shell;
    MainWindow& w = shell.window();
    makeCustom(w);
    const json before = stateJson(shell);
    QVERIFY(!shell.sessions()->applyStateString(text));
    const QString error = shell.sessions()->lastError();
    QVERIFY2(error.contains(expected), qPrintable(error));
    QVERIFY(errorBox(w));
    QCOMPARE(stateJson(shell).dump(), before.dump());
  }

  void truncatedAndInvalidStateStrings() {
    AppShell shell;
    MainWindow& w = shell.window();
    makeCustom(w);
    const json before = stateJson(shell);
    const QString s = shell.sessions()->stateString();
    QVERIFY(!shell.sessions()->applyStateString(s.left(s.size() / 2)));
    QVERIFY2(shell.sessions()->lastError().contains("damaged"),
             qPrintable(shell.sessions()->lastError()));
    // Well-formed string, content the window refuses: named like a session file's field.
    SessionState bad = captureSession(shell.sessionParts());
    bad.family = "jordan-exact";
    bad.values["gamma"] = -3;
    bad.tab = "kernel";
    QVERIFY(!shell.sessions()->applyStateString(encodeStateString(bad)));
    QVERIFY2(shell.sessions()->lastError().contains("explorer.values.gamma"),
             qPrintable(shell.sessions()->lastError()));
    QCOMPARE(stateJson(shell).dump(), before.dump());
  }

  void recentFilesKeepEightAndPruneMissing() {
    QSettings().clear();
    QTemporaryDir dir;
    AppShell shell;
    MainWindow& w = shell.window();
    SessionController* c = shell.sessions();
    QStringList files;
    for (int i = 0; i < 10; ++i) {
      files << dir.filePath(QString("s%1.poslab").arg(i));
      QVERIFY(c->saveFile(files.last()));
    }
    QStringList expected;
    for (int i = 9; i >= 2; --i) expected << files[i];
    QCOMPARE(c->recentFiles(), expected);
    QVERIFY(QFile::remove(files[5]));
    QCOMPARE(c->pruneRecentFiles(), QStringList{files[5]});
    expected.removeAll(files[5]);
    QCOMPARE(c->recentFiles(), expected);
    QVERIFY(w.statusBar()->currentMessage().contains("s5.poslab"));
    // The menu lists them, newest first.
    Q_EMIT c->recentMenu()->aboutToShow();
    QCOMPARE(c->recentMenu()->actions().value(0)->data().toString(), files[9]);
  }

  void windowLayoutKeptAcrossRuns() {
    QSettings().clear();
    QList<int> sizes;
    {
      AppShell shellA;
      MainWindow& a = shellA.window();
      shellA.sessions()->persistLayout();  // nothing stored yet: the defaults stay
      a.resize(1700, 900);
      a.show();
      QVERIFY(QTest::qWaitForWindowExposed(&a));
      auto* split = a.findChild<QSplitter*>("mainSplitter");
      QVERIFY(split);
      split->setSizes({600, 1100});
      sizes = split->sizes();
      QVERIFY2(sizes.value(0) > 550, qPrintable(QString::number(sizes.value(0))));
      a.close();  // saves
    }
    AppShell shellB;
    MainWindow& b = shellB.window();
    auto* split = b.findChild<QSplitter*>("mainSplitter");
    QVERIFY(split->sizes() != sizes);    // a fresh window does not read the settings ...
    shellB.sessions()->persistLayout();  // ... the application asks for it
    b.show();
    QVERIFY(QTest::qWaitForWindowExposed(&b));
    QCOMPARE(split->sizes(), sizes);
    QCOMPARE(b.size(), QSize(1700, 900));
  }

  void presetsMenuListsAndLoads() {
    AppShell shell;
    MainWindow& w = shell.window();
    QMenuBar* bar = w.menuBar();
    QCOMPARE(bar->actions().value(0)->menu()->objectName(), QString("fileMenu"));
    QMenu* menu = shell.actions().presets;
    QVERIFY(menu);
    const auto names = poslab::presetNames();
    QVERIFY(names.size() >= 4);
    QCOMPARE(menu->actions().size(), int(names.size()));
    for (const auto& name : names) {
      auto* action = menu->findChild<QAction*>(QString::fromStdString("preset:" + name));
      if (!action) action = w.findChild<QAction*>(QString::fromStdString("preset:" + name));
      QVERIFY2(action, name.c_str());
      QCOMPARE(action->text(), QString::fromStdString(name));
      QVERIFY(action->toolTip().startsWith(
          QString::fromStdString(poslab::loadPreset(name).description)));
    }
    auto* pope = w.findChild<QAction*>("preset:pope-indirect-indexing");
    QVERIFY(pope);
    pope->trigger();
    TrainingPanel* t = w.trainingPanel();
    QVERIFY(t->isPlaying());
    t->pause();
    QCOMPARE(w.currentView(), WindowView::Training);
    const poslab::ExperimentSpec e = t->experiment();
    QCOMPARE(e.base.task.id, std::string("indirect-indexing"));
    QCOMPARE(std::set<std::string>(e.families.begin(), e.families.end()),
             (std::set<std::string>{"pope", "rope"}));
    QCOMPARE(e.base.run.steps, 2500LL);
    QCOMPARE(e.base.optim.batch, 128LL);
    QCOMPARE(e.base.task.options.at("alphabet"), 16.0);
    QCOMPARE(e.seeds, (std::vector<uint64_t>{0}));
    QCOMPARE(t->runCount(), 2);
    QVERIFY2(w.statusBar()->currentMessage().contains("seed 0 of 3"),
             qPrintable(w.statusBar()->currentMessage()));
  }

  void presetVariantsLoadTheFirst() {
    QTemporaryDir dir;
    const QString path = dir.filePath("teach.json");
    writeText(path, R"({"name": "teach", "description": "d", "families": ["pj-bias"],
      "family_params": {"pj-bias": {"pin_omega": 1}}, "seeds": [4, 5],
      "variants": [{"kernel": "second_jet"}, {"kernel": "lc_core"}],
      "config": {"task": {"id": "sector-teacher", "kernel": "phase", "train_length": 32},
                 "run": {"steps": 9}}})");
    AppShell shell;
    MainWindow& w = shell.window();
    QString error, note;
    QVERIFY2(shell.loadPreset(path, &error, &note), qPrintable(error));
    const poslab::ExperimentSpec e = w.trainingPanel()->experiment();
    QCOMPARE(e.base.task.kernel, std::string("second_jet"));
    QCOMPARE(e.seeds, (std::vector<uint64_t>{4}));
    QCOMPARE(e.familyParams.at("pj-bias").at("pin_omega"), 1.0);
    QVERIFY2(note.contains("task variant 1 of 2 (kernel second_jet)"), qPrintable(note));
    QVERIFY(!shell.loadPreset("no-such-preset", &error, &note));
    QVERIFY2(error.contains("unknown preset 'no-such-preset'"), qPrintable(error));
    QCOMPARE(w.trainingPanel()->experiment().base.task.kernel, std::string("second_jet"));
  }

  // The Presets menu reads presets as strictly as the CLI and sessions do: a misspelt key (here
  // in a variant, which used to train the default teacher under the variant's name) is refused,
  // naming the file and the key, and the training tab keeps its setup.
  void presetWithAMisspeltKeyChangesNothing() {
    QTemporaryDir dir;
    const QString path = dir.filePath("typo.json");
    writeText(path,
              R"({"name": "typo", "families": ["pj-bias"], "variants": [{"kernal": "second_jet"}],
      "config": {"task": {"id": "sector-teacher", "kernel": "phase", "train_length": 32}}})");
    AppShell shell;
    MainWindow& w = shell.window();
    const poslab::ExperimentSpec before = w.trainingPanel()->experiment();
    QString error, note;
    QVERIFY(!shell.loadPreset(path, &error, &note));
    QVERIFY2(error.contains(path), qPrintable(error));
    QVERIFY2(error.contains("field 'variants[0].kernal' is not a known field"), qPrintable(error));
    QCOMPARE(poslab::experimentToJson(w.trainingPanel()->experiment()),
             poslab::experimentToJson(before));
  }
};

QTEST_MAIN(TestSessions)
#include "test_sessions.moc"
