// Issue 32: every way the window loads a TorchScript module goes through one gate
// (session/family_file_gate.h). Opening a session, pasting a state string and loading a preset
// that name a family file say first, once per window, that loading runs the file's code
// (Cancel changes nothing); the module's checks run off the UI thread, the window unchanged
// until they pass; a module that fails, or a file whose content changed since the state string
// was copied, is refused in one line. The modules are written by the torchscript.write_modules
// fixture (POSLAB_TS_DIR); ui.test_load_encoding leaves a session saved with trained models
// (whose module file is gone) in POSLAB_ENCODING_SHOTS, where screenshots go too.
#include <QAbstractButton>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QListWidget>
#include <QMessageBox>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <qcustomplot.h>

#include "app_shell.h"
#include "bridge/loaded_families.h"
#include "code_notice.h"
#include "explorer/explorer_controller.h"
#include "explorer/kernel_view.h"
#include "explorer/parameter_panel.h"
#include "family_names.h"
#include "file_hash.h"
#include "main_window.h"
#include "menus/file_menu.h"
#include "menus/load_encoding.h"
#include "panel_actions.h"
#include "session/family_file_gate.h"
#include "session/session_io.h"
#include "tiny_setups.h"
#include "training/family_start_form.h"
#include "training/training_panel.h"
#include "training/training_setup_form.h"

using namespace poslab::ui;

namespace {
constexpr int kWaitMs = 60000;

QString module(const char* name) {
  return QDir(qEnvironmentVariable("POSLAB_TS_DIR")).absoluteFilePath(name);
}

QString shotsDir() {
  return qEnvironmentVariable("POSLAB_ENCODING_SHOTS");
}

// A fresh window, shown, each with its own gate (nothing agreed yet).
std::unique_ptr<AppShell> newShell() {
  auto shell = std::make_unique<AppShell>();
  shell->window().resize(1280, 860);
  shell->window().show();
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

QStringList familyItems(const AppShell& shell) {
  auto* box = shell.window().parameters()->findChild<QComboBox*>("family");
  QStringList out;
  for (int i = 0; i < box->count(); ++i) out << box->itemData(i).toString();
  return out;
}

void closeBoxes(AppShell& shell) {
  for (QMessageBox* box : shell.window().findChildren<QMessageBox*>()) box->close();
}
}  // namespace

class TestFamilyFileGate : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

  // A copy of `name` under a path this process has not loaded yet.
  QString freshCopy(const char* name, const QString& as) {
    const QString path = dir_.filePath(as);
    QFile::remove(path);
    if (!QFile::copy(module(name), path)) return {};
    return path;
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY2(QFile::exists(module("damped.pt")), "POSLAB_TS_DIR has no damped.pt");
    QVERIFY(dir_.isValid());
  }

  // Opening a session that names a family file: the notice first; Cancel changes nothing; Load
  // checks the module off the UI thread (nothing has changed right after the click) and then
  // opens the session.
  void sessionOpenSaysSoFirst() {
    auto shell = newShell();
    const QString file = freshCopy("damped.pt", "session_family.pt");
    const QString id = "file:" + file;
    const QString session = dir_.filePath("a.poslab");
    QString error;
    QVERIFY2(saveSessionFile(session, stateWithFamily(*shell, id, test::fnv1a(file)), &error),
             qPrintable(error));
    const QStringList before = familyItems(*shell);
    QSignalSpy settled(shell->familyGate(), &FamilyFileGate::settled);

    shell->sessions()->openInBackground(session);
    QMessageBox* notice = test::visibleCodeNotice(shell->window());
    QVERIFY2(notice, "no notice before the session's module ran");
    QVERIFY2(notice->text().contains("runs its code"), qPrintable(notice->text()));
    if (!shotsDir().isEmpty()) {
      QCoreApplication::processEvents();
      QVERIFY(notice->grab().save(QDir(shotsDir()).filePath("gate-session-notice.png")));
    }
    test::answerCodeNotice(notice, /*agree=*/false);
    QTRY_COMPARE(settled.count(), 1);
    QCOMPARE(settled.at(0).at(0).toBool(), false);
    QVERIFY(!findFamily(id.toStdString()));
    QCOMPARE(familyItems(*shell), before);
    QVERIFY(!shell->familyGate()->agreed());

    shell->sessions()->openInBackground(session);
    QTRY_VERIFY(notice = test::visibleCodeNotice(shell->window()));
    test::answerCodeNotice(notice, /*agree=*/true);
    // The module loads on its own thread: the window has not changed yet.
    QVERIFY(shell->familyGate()->busy());
    QCOMPARE(familyItems(*shell), before);
    QVERIFY(settled.wait(kWaitMs));
    QVERIFY2(settled.at(1).at(0).toBool(), qPrintable(settled.at(1).at(1).toString()));
    QCOMPARE(QString::fromStdString(shell->window().parameters()->familyId()), id);
    QVERIFY(shell->familyGate()->agreed());
  }

  // Once agreed, a window does not ask again: a pasted state string with another file loads.
  void noticeOncePerWindow() {
    auto shell = newShell();
    shell->familyGate()->setAgreed();
    const QString file = freshCopy("linear_bias.pt", "pasted_family.pt");
    const QString id = "file:" + file;
    QSignalSpy settled(shell->familyGate(), &FamilyFileGate::settled);
    shell->sessions()->applyStateStringInBackground(
        encodeStateString(stateWithFamily(*shell, id, test::fnv1a(file))));
    QVERIFY(!test::visibleCodeNotice(shell->window()));
    QVERIFY(settled.wait(kWaitMs));
    QVERIFY2(settled.at(0).at(0).toBool(), qPrintable(settled.at(0).at(1).toString()));
    QVERIFY2(shell->sessions()->lastError().isEmpty(), qPrintable(shell->sessions()->lastError()));
    QCOMPARE(QString::fromStdString(shell->window().parameters()->familyId()), id);
  }

  // A preset that names a family file: the notice, then the preset in the training tab.
  void presetSaysSoFirst() {
    auto shell = newShell();
    const QString file = freshCopy("damped.pt", "preset_family.pt");
    const std::string id = "file:" + file.toStdString();
    const QString preset = dir_.filePath("preset.json");
    QFile out(preset);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(QByteArray::fromStdString(
        poslab::experimentToJson(test::tinyIndirectSetup({id, "rope"})).dump()));
    out.close();
    QSignalSpy settled(shell->familyGate(), &FamilyFileGate::settled);
    shell->loadPresetInBackground(preset);
    QMessageBox* notice = test::visibleCodeNotice(shell->window());
    QVERIFY2(notice, "no notice before the preset's module ran");
    QVERIFY(!findFamily(id));
    test::answerCodeNotice(notice, /*agree=*/true);
    QVERIFY(settled.wait(kWaitMs));
    QVERIFY2(settled.at(0).at(0).toBool(), qPrintable(settled.at(0).at(1).toString()));
    TrainingPanel* panel = shell->window().trainingPanel();
    std::vector<std::string> families = panel->experiment().families;
    std::sort(families.begin(), families.end());
    QCOMPARE(families, (std::vector<std::string>{id, "rope"}));
    panel->pause();
  }

  // A module that fails its checks: one line naming the session, the field and the file; the
  // window as it was.
  void failingModuleChangesNothing() {
    auto shell = newShell();
    shell->familyGate()->setAgreed();
    const QString file = freshCopy("bad_nan.pt", "session_bad.pt");
    const QString session = dir_.filePath("bad.poslab");
    QString error;
    QVERIFY(saveSessionFile(session, stateWithFamily(*shell, "file:" + file, test::fnv1a(file)),
                            &error));
    const std::string family = shell->window().parameters()->familyId();
    const QStringList before = familyItems(*shell);
    QSignalSpy settled(shell->familyGate(), &FamilyFileGate::settled);
    shell->sessions()->openInBackground(session);
    QVERIFY(settled.wait(kWaitMs));
    QCOMPARE(settled.at(0).at(0).toBool(), false);
    const QString line = settled.at(0).at(1).toString();
    QVERIFY2(line.contains(session) && line.contains("family_files[0]") &&
                 line.contains("session_bad.pt") && !line.contains('\n'),
             qPrintable(line));
    QVERIFY2(shell->sessions()->lastError().startsWith(line),
             qPrintable(shell->sessions()->lastError()));
    QCOMPARE(shell->window().parameters()->familyId(), family);
    QCOMPARE(familyItems(*shell), before);
    closeBoxes(*shell);
  }

  // A state string keeps each family file's content hash, as a session does: a file changed
  // since the copy is refused, naming it, from the menu's paste and the direct one alike.
  void pastedStateChecksTheHash() {
    auto shell = newShell();
    shell->familyGate()->setAgreed();
    const QString file = freshCopy("damped.pt", "changing_family.pt");
    const QString id = "file:" + file;
    const QString text = encodeStateString(stateWithFamily(*shell, id, test::fnv1a(file)));
    QVERIFY(QFile::remove(file) && QFile::copy(module("rope.pt"), file));  // another module now
    const std::string family = shell->window().parameters()->familyId();
    QSignalSpy settled(shell->familyGate(), &FamilyFileGate::settled);
    shell->sessions()->applyStateStringInBackground(text);
    QVERIFY(settled.wait(kWaitMs));
    QCOMPARE(settled.at(0).at(0).toBool(), false);
    const QString line = settled.at(0).at(1).toString();
    QVERIFY2(line.startsWith("the state string") && line.contains("changed since it was saved") &&
                 line.contains(file) && !line.contains('\n'),
             qPrintable(line));
    QVERIFY(!findFamily(id.toStdString()));
    QCOMPARE(shell->window().parameters()->familyId(), family);
    closeBoxes(*shell);
    QVERIFY(!shell->sessions()->applyStateString(text));
    QVERIFY2(shell->sessions()->lastError().contains("changed since it was saved"),
             qPrintable(shell->sessions()->lastError()));
    QVERIFY(!findFamily(id.toStdString()));
    closeBoxes(*shell);
  }

  // A family file loaded again with another module (damped.pt, then rope.pt: γ is gone, base
  // stays): the training form's start box is rebuilt from the new metadata, and a value set for
  // γ is dropped rather than refused at Play.
  void reloadRebuildsTheStartBox() {
    auto shell = newShell();
    const QString file = freshCopy("damped.pt", "reloaded_family.pt");
    const std::string id = "file:" + file.toStdString();
    auto load = [&] {
      QSignalSpy done(shell->encodings(), &EncodingLoader::finished);
      shell->encodings()->load(file);
      return done.wait(kWaitMs) && done.at(0).at(0).toBool();
    };
    QVERIFY(load());
    TrainingPanel* panel = shell->window().trainingPanel();
    poslab::ExperimentSpec setup = test::tinyIndirectSetup({id, "rope"});
    setup.familyParams[id] = {{"gamma", 0.05}, {"base", 500}};
    test::loadExperiment(*panel, setup);
    FamilyStartForm* start = panel->setupForm()->familyStart();
    QVERIFY(start->valueBox(id, "gamma") && start->valueBox(id, "base"));
    QCOMPARE(start->valueBox(id, "gamma")->value(), 0.05);

    QVERIFY(QFile::remove(file) && QFile::copy(module("rope.pt"), file));
    QVERIFY(load());
    QVERIFY2(!start->valueBox(id, "gamma"), "the start box still offers the old module's γ");
    QVERIFY(start->valueBox(id, "base"));
    QCOMPARE(start->valueBox(id, "base")->value(), 500.0);  // still set, and the module has it
    const auto params = panel->experiment().familyParams.at(id);
    QVERIFY(!params.count("gamma"));
    QCOMPARE(params.at("base"), 500.0);
    QVERIFY(!start->pinBox("gamma") || !start->pinBox("gamma")->isChecked());
  }

  // A family file deep in folders: the legends, the training form's list and the start box name
  // it by its module's title (here with its file name: other copies of damped.pt share the
  // title), never by its long file:PATH, which its tool tips give in full.
  void longPathsShowTitles() {
    auto shell = newShell();
    MainWindow& w = shell->window();
    QVERIFY(
        QDir(dir_.path()).mkpath("a_folder_with_a_long_name/of_encodings/written_by_a_researcher"));
    const QString file = freshCopy("damped.pt",
                                   "a_folder_with_a_long_name/of_encodings/written_by_a_researcher/"
                                   "my_encoding.pt");
    const QString id = "file:" + file;
    QSignalSpy done(shell->encodings(), &EncodingLoader::finished);
    shell->encodings()->load(file);
    QVERIFY(done.wait(kWaitMs) && done.at(0).at(0).toBool());
    const QString shortName = familyShortName(id.toStdString());
    QCOMPARE(shortName, QString("Damped RoPE (TorchScript) (my_encoding.pt)"));
    QVERIFY(familyToolTip(id.toStdString()).contains(file));

    TrainingPanel* panel = w.trainingPanel();
    test::loadExperiment(*panel, test::tinyIndirectSetup({id.toStdString(), "rope"}));
    w.showView(WindowView::Training);
    test::clickButton(panel, "stepButton");
    QTRY_VERIFY_WITH_TIMEOUT(
        panel->runCount() == 2 && panel->runStep(0) >= 1 && panel->runStep(1) >= 1, kWaitMs);
    QStringList legends;
    for (const auto& c : panel->curves()) legends << c.loss->name();
    QVERIFY2(legends.contains(shortName) && legends.contains("rope"),
             qPrintable(legends.join(", ")));
    auto* list = w.findChild<QListWidget*>("trainFamilies");
    QListWidgetItem* item = nullptr;
    for (int i = 0; i < list->count(); ++i)
      if (list->item(i)->data(Qt::UserRole).toString() == id) item = list->item(i);
    QVERIFY(item);
    QCOMPARE(item->text(), shortName);
    QVERIFY2(item->toolTip().contains(file), qPrintable(item->toolTip()));
    if (!shotsDir().isEmpty()) {
      QCoreApplication::processEvents();
      QVERIFY(w.grab().save(QDir(shotsDir()).filePath("gate-long-path-training.png")));
    }
    panel->pause();

    QVERIFY(w.parameters()->setFamily("rope"));
    w.showView(WindowView::Kernel);
    w.kernelView()->setOverlay({id.toStdString()});
    ExplorerController* c = shell->explorer();
    QTRY_VERIFY_WITH_TIMEOUT(!c->busy() && c->isUpToDate(ExplorerView::Kernel), kWaitMs);
    QCPGraph* overlay = w.kernelView()->overlayGraph(id);
    QVERIFY2(overlay, qPrintable(w.kernelView()->overlayStatus()));
    QCOMPARE(overlay->name(), shortName + " (overlay)");
    if (!shotsDir().isEmpty()) {
      QCoreApplication::processEvents();
      QVERIFY(w.grab().save(QDir(shotsDir()).filePath("gate-long-path-overlay.png")));
    }
  }

  // A session saved with trained models whose module file is gone (ui.test_load_encoding's):
  // the notice, then the module its checkpoint keeps, loaded off the UI thread.
  void checkpointModuleSaysSoFirst() {
    const QString models = QDir(shotsDir()).filePath("models.poslab");
    if (shotsDir().isEmpty() || !QFile::exists(models))
      QSKIP("no session with trained models from ui.test_load_encoding");
    auto shell = newShell();
    QSignalSpy settled(shell->familyGate(), &FamilyFileGate::settled);
    shell->sessions()->openInBackground(models);
    QMessageBox* notice = test::visibleCodeNotice(shell->window());
    QVERIFY2(notice, "no notice before the checkpoint's module ran");
    test::answerCodeNotice(notice, /*agree=*/true);
    QVERIFY(settled.wait(kWaitMs));
    QVERIFY2(settled.at(0).at(0).toBool(), qPrintable(settled.at(0).at(1).toString()));
    // Then the checkpoints' weights are read, off the UI thread too, before the session applies.
    QTRY_VERIFY_WITH_TIMEOUT(!shell->sessions()->isOpening(), kWaitMs);
    QVERIFY2(shell->sessions()->lastError().isEmpty(), qPrintable(shell->sessions()->lastError()));
    QCOMPARE(shell->window().trainingPanel()->runCount(), 2);
    shell->window().trainingPanel()->pause();
  }
};

QTEST_MAIN(TestFamilyFileGate)
#include "test_family_file_gate.moc"
