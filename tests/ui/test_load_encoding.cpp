// Issue 32: a family written in PyTorch, loaded at run time, goes wherever a built-in family goes
// in the window. File > Load Encoding... says once that loading runs the file's code; a hostile
// file is refused with one line and changes nothing; a good one joins the explorer's and the
// training form's family lists with sliders from its metadata; the kernel view draws what the
// family's formula (written here from tests/torchscript/write_modules.py, not from the module)
// gives for the slider's value; every explorer view shows it, or says in one line which form is
// missing; it trains in compare mode beside rope. The modules are written by the
// torchscript.write_modules fixture (POSLAB_TS_DIR); POSLAB_ENCODING_SHOTS=DIR saves
// screenshots.
#include <qcustomplot.h>
#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>

#include "app_shell.h"
#include "bridge/loaded_families.h"
#include "explorer/explorer_controller.h"
#include "explorer/kernel_view.h"
#include "explorer/parameter_panel.h"
#include "file_hash.h"
#include "main_window.h"
#include "menus/file_menu.h"
#include "menus/load_encoding.h"
#include "panel_actions.h"
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

void shoot(QWidget& w, const char* name) {
  const QString dir = qEnvironmentVariable("POSLAB_ENCODING_SHOTS");
  if (dir.isEmpty()) return;
  QCoreApplication::processEvents();
  QVERIFY(w.grab().save(QDir(dir).filePath(name)));
}

// damped.pt's kernel (write_modules.py, MATH 1.5): K(d) = e^(−γ d) · mean_b cos(ω_b d) over the
// D/4 = 4 blocks of head_dim 16, ω_b = base^(−2b/D).
double dampedKernel(double gamma, double base, double d) {
  double sum = 0;
  for (int b = 0; b < 4; ++b) sum += std::cos(std::pow(base, -2.0 * b / 16.0) * d);
  return std::exp(-gamma * d) * sum / 4.0;
}

nlohmann::json readJson(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return nlohmann::json::parse(f.readAll().toStdString());
}

// The training form's items for family `id` (an item's data is its id; its text a short name).
QList<QListWidgetItem*> trainItems(QListWidget* list, const QString& id) {
  QList<QListWidgetItem*> out;
  for (int i = 0; i < list->count(); ++i)
    if (list->item(i)->data(Qt::UserRole).toString() == id) out << list->item(i);
  return out;
}

QStringList familyItems(QComboBox* box) {
  QStringList out;
  for (int i = 0; i < box->count(); ++i) out << box->itemData(i).toString();
  return out;
}
}  // namespace

class TestLoadEncoding : public QObject {
  Q_OBJECT

  std::unique_ptr<AppShell> shell_;
  MainWindow* w_ = nullptr;

  QComboBox* familyBox() { return w_->parameters()->findChild<QComboBox*>("family"); }
  QListWidget* trainFamilies() { return w_->findChild<QListWidget*>("trainFamilies"); }
  void settle(ExplorerView view) {
    ExplorerController* c = shell_->explorer();
    QTRY_VERIFY2_WITH_TIMEOUT(!c->busy() && c->isUpToDate(view), "view did not settle", kWaitMs);
  }
  // Loads `path` through the menu's command (the notice already agreed); the outcome.
  std::pair<bool, QString> load(const QString& path) {
    QSignalSpy done(shell_->encodings(), &EncodingLoader::finished);
    shell_->encodings()->load(path);
    if (!done.wait(kWaitMs)) return {false, "no answer"};
    return {done.at(0).at(0).toBool(), done.at(0).at(1).toString()};
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY2(QFile::exists(module("damped.pt")), "POSLAB_TS_DIR has no damped.pt");
    shell_ = std::make_unique<AppShell>();
    w_ = &shell_->window();
    w_->resize(1280, 860);
    w_->show();
  }

  // The first Load Encoding of a session says that loading runs code; Cancel changes nothing.
  void noticeComesFirst() {
    const QStringList before = familyItems(familyBox());
    QVERIFY(shell_->actions().loadEncoding->isEnabled());
    shell_->actions().loadEncoding->trigger();
    QMessageBox* notice = nullptr;
    QTRY_VERIFY((notice = w_->findChild<QMessageBox*>("encodingCodeNotice")) &&
                notice->isVisible());
    QVERIFY2(notice->text().contains("runs its code"), qPrintable(notice->text()));
    shoot(*notice, "encoding-notice.png");
    notice->reject();
    QVERIFY(!shell_->encodings()->agreed());
    QCOMPARE(familyItems(familyBox()), before);
  }

  // Each hostile file: one line naming the file and what was wrong; the window as it was.
  void hostileFilesChangeNothing() {
    QVERIFY(w_->parameters()->setFamily("rope"));
    const QStringList families = familyItems(familyBox());
    const int trainCount = trainFamilies()->count();
    const struct {
      const char* file;
      const char* says;
    } cases[] = {{"not_torchscript.pt", "not a TorchScript module"},
                 {"bad_shape.pt", "scores: returned shape"},
                 {"bad_signature.pt", "scores: wrong signature"},
                 {"bad_noncausal.pt", "depends on more than its own query and key"},
                 {"bad_nan.pt", "bad_nan.pt"},
                 {"bad_raises.pt", "bad_raises.pt"},
                 {"missing.pt", "missing.pt"}};
    for (const auto& c : cases) {
      const auto [ok, message] = load(module(c.file));
      QVERIFY2(!ok, c.file);
      QVERIFY2(message.contains(c.file) && message.contains(c.says, Qt::CaseInsensitive),
               qPrintable(message));
      QVERIFY2(!message.contains('\n'), qPrintable(message));
      QCOMPARE(familyItems(familyBox()), families);
      QCOMPARE(trainFamilies()->count(), trainCount);
      QCOMPARE(w_->parameters()->familyId(), std::string("rope"));
    }
    // The error box of the last one: close it, as a user would.
    for (QMessageBox* box : w_->findChildren<QMessageBox*>("loadEncodingError")) box->close();
  }

  // A good file: both lists, sliders from its metadata, the kernel the formula gives.
  void loadedFamilyHasSlidersAndKernel() {
    const auto [ok, id] = load(module("damped.pt"));
    QVERIFY2(ok, qPrintable(id));
    QCOMPARE(id, "file:" + module("damped.pt"));
    QCOMPARE(QString::fromStdString(w_->parameters()->familyId()), id);
    QVERIFY(familyItems(familyBox()).contains(id));
    QCOMPARE(familyBox()->currentText(), QString("Damped RoPE (TorchScript) (file)"));
    QCOMPARE(trainItems(trainFamilies(), id).size(), 1);
    // Named by its title, not its long file:PATH; the path in its tool tip.
    QCOMPARE(trainItems(trainFamilies(), id).front()->text(), QString("Damped RoPE (TorchScript)"));
    QVERIFY(trainItems(trainFamilies(), id).front()->toolTip().contains(module("damped.pt")));
    auto* label = w_->parameters()->findChild<QLabel*>("label_gamma");
    QVERIFY(label);
    QVERIFY2(label->text().contains(QString::fromUtf8("γ")), qPrintable(label->text()));

    // Move γ's slider as a user drags it; the kernel view redraws with the new γ.
    w_->showView(WindowView::Kernel);
    auto* slider = w_->parameters()->findChild<QSlider*>("slider_gamma");
    QVERIFY(slider);
    slider->setValue(slider->maximum() * 6 / 10);  // a log slider over 10·[1e-6, 1]: γ ≈ 0.04
    const double gamma = w_->parameters()->values().at("gamma");
    QVERIFY2(gamma > 1e-3 && gamma < 1, qPrintable(QString::number(gamma)));
    settle(ExplorerView::Kernel);
    QVERIFY2(w_->errorLabel()->text().isEmpty(), qPrintable(w_->errorLabel()->text()));
    QCPGraph* kernel = w_->kernelView()->kernelGraph();
    QVERIFY(kernel && kernel->dataCount() >= 16);
    double largest = 0;
    for (auto it = kernel->data()->constBegin(); it != kernel->data()->constEnd(); ++it) {
      const double expected = dampedKernel(gamma, 10000, it->key);
      QVERIFY2(
          std::abs(it->value - expected) <= 1e-12,
          qPrintable(QString("K(%1) = %2, formula %3").arg(it->key).arg(it->value).arg(expected)));
      largest = std::max(largest, std::abs(it->value - dampedKernel(1e-4, 10000, it->key)));
    }
    QVERIFY2(largest > 1e-3, "γ's slider did not change the kernel: the check could not fail");
    shoot(*w_, "encoding-kernel.png");
  }

  // Every explorer view shows the loaded family.
  void everyViewShowsIt() {
    for (WindowView v : {WindowView::Attention, WindowView::Norms, WindowView::Probe,
                         WindowView::Diagnostics, WindowView::Kernel}) {
      w_->showView(v);
      settle(static_cast<ExplorerView>(v));
      QVERIFY2(shell_->explorer()->lastError().isEmpty(),
               qPrintable(windowViewName(v) + ": " + shell_->explorer()->lastError()));
      if (v == WindowView::Attention) shoot(*w_, "encoding-attention.png");
      if (v == WindowView::Norms) shoot(*w_, "encoding-norms.png");
    }
  }

  // A bias-only family without kernel(): the kernel view says so in one line; the others show it.
  void missingFormSaysSo() {
    const auto [ok, id] = load(module("linear_bias.pt"));
    QVERIFY2(ok, qPrintable(id));
    w_->showView(WindowView::Kernel);
    settle(ExplorerView::Kernel);
    const QString error = shell_->explorer()->lastError();
    QVERIFY2(error.contains("kernel view is not available"), qPrintable(error));
    QVERIFY2(!error.contains('\n'), qPrintable(error));
    QVERIFY(w_->errorLabel()->isVisible());
    shoot(*w_, "encoding-no-kernel.png");
    w_->showView(WindowView::Attention);
    settle(ExplorerView::Attention);
    QVERIFY2(shell_->explorer()->lastError().isEmpty(),
             qPrintable(shell_->explorer()->lastError()));
  }

  // Compare mode: the loaded family, rope and pope train on the same batches, side by side.
  void trainsBesideRopeAndPope() {
    const std::string id = "file:" + module("damped.pt").toStdString();
    TrainingPanel* panel = w_->trainingPanel();
    poslab::ExperimentSpec tiny = test::tinyIndirectSetup({id, "rope", "pope"});
    tiny.base.optim.warmup = 0;
    tiny.base.optim.positionLrScale = 10;
    tiny.familyParams[id] = {{"gamma", 0.05}};
    test::loadExperiment(*panel, tiny);
    w_->showView(WindowView::Training);
    for (long long s = 1; s <= 6; ++s) {
      test::clickButton(panel, "stepButton");
      QTRY_VERIFY_WITH_TIMEOUT(panel->runCount() == 3 && panel->runStep(0) >= s &&
                                   panel->runStep(1) >= s && panel->runStep(2) >= s,
                               kWaitMs);
    }
    std::map<std::string, poslab::Snapshot> runs;
    for (int r = 0; r < 3; ++r) runs[panel->runFamily(r)] = panel->lastSnapshot(r);
    QCOMPARE(runs.size(), size_t(3));
    QVERIFY(runs.count(id) && runs.count("rope") && runs.count("pope"));
    const poslab::Snapshot loaded = runs.at(id);
    const double ropeLoss = runs.at("rope").loss;
    QVERIFY(std::isfinite(loaded.loss) && std::isfinite(ropeLoss) &&
            std::isfinite(runs.at("pope").loss));
    // Its own encoding: the same batches and weights, another loss.
    QVERIFY2(std::abs(loaded.loss - ropeLoss) > 1e-7,
             qPrintable(
                 QString("%1 vs rope %2").arg(loaded.loss, 0, 'g', 12).arg(ropeLoss, 0, 'g', 12)));
    // Its learned γ (per head, per layer) started at the setup's 0.05 and moved.
    QVERIFY(loaded.position.count("gamma"));
    double moved = 0;
    for (double g : loaded.position.at("gamma")) moved = std::max(moved, std::abs(g - 0.05));
    QVERIFY2(moved > 1e-6, "γ did not train");
    // Show in Explorer: the learned γ, the mean over layers and heads, in the explorer's slider.
    int run = 0;
    while (panel->runFamily(run) != id) ++run;
    QString error;
    QVERIFY2(shell_->showRunInExplorer(run, -1, &error), qPrintable(error));
    QCOMPARE(w_->parameters()->familyId(), id);
    const std::vector<double>& learned = loaded.position.at("gamma");
    double meanLearned = 0;
    for (double g : learned) meanLearned += g / double(learned.size());
    QVERIFY2(std::abs(w_->parameters()->values().at("gamma") - meanLearned) <= 1e-12,
             qPrintable(QString("explorer %1, learned mean %2")
                            .arg(w_->parameters()->values().at("gamma"))
                            .arg(meanLearned)));
    w_->showView(WindowView::Training);
    // The start box shows the loaded family's start: the setup's γ, its default base.
    FamilyStartForm* start = panel->setupForm()->familyStart();
    QVERIFY(start->valueBox(id, "gamma") && start->valueBox(id, "base"));
    QCOMPARE(start->valueBox(id, "gamma")->value(), 0.05);
    QCOMPARE(start->valueBox(id, "base")->value(), 10000.0);
    QVERIFY(start->pinBox("gamma"));  // its learned parameter declares its pin
    shoot(*w_, "encoding-training.png");
  }

  // Sessions keep a loaded family by path and content hash. A changed file is refused; a
  // session saved with trained models opens from the module its checkpoint keeps.
  void sessionsKeepPathAndHash() {
    QTemporaryDir dir;
    const QString mine = dir.filePath("mine.pt");
    QVERIFY(QFile::copy(module("damped.pt"), mine));
    const auto [ok, id] = load(mine);
    QVERIFY2(ok, qPrintable(id));
    QVERIFY(w_->parameters()->setValue("gamma", 0.0125));
    TrainingPanel* panel = w_->trainingPanel();
    test::loadExperiment(*panel, test::tinyIndirectSetup({id.toStdString(), "rope"}));
    for (long long s = 1; s <= 2; ++s) {
      test::clickButton(panel, "stepButton");
      QTRY_VERIFY_WITH_TIMEOUT(
          panel->runCount() == 2 && panel->runStep(0) >= s && panel->runStep(1) >= s, kWaitMs);
    }
    SessionController* sessions = shell_->sessions();
    const QString plain = dir.filePath("plain.poslab"), models = dir.filePath("models.poslab");
    QVERIFY2(sessions->saveFile(plain), qPrintable(sessions->lastError()));
    QSignalSpy saved(sessions, &SessionController::sessionSaved);
    QVERIFY2(sessions->saveFileWithModels(models), qPrintable(sessions->lastError()));
    QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, kWaitMs);  // the runs write their checkpoints
    QVERIFY2(saved.at(0).at(1).toString().isEmpty(), qPrintable(saved.at(0).at(1).toString()));
    QCOMPARE(readJson(models).at("family_files"), readJson(plain).at("family_files"));
    // With screenshots asked for, a copy of the session with its trained models stays beside
    // them, for `poslab --session` in a fresh process once mine.pt is gone with this folder.
    if (const QString keep = qEnvironmentVariable("POSLAB_ENCODING_SHOTS"); !keep.isEmpty()) {
      QDir(keep).mkpath("models.poslab.d");
      QFile::remove(QDir(keep).filePath("models.poslab"));
      QVERIFY(QFile::copy(models, QDir(keep).filePath("models.poslab")));
      for (const QString& f : QDir(models + ".d").entryList(QDir::Files)) {
        QFile::remove(QDir(keep).filePath("models.poslab.d/" + f));
        QVERIFY(QFile::copy(models + ".d/" + f, QDir(keep).filePath("models.poslab.d/" + f)));
      }
    }
    const QString hash = test::fnv1a(mine);
    const nlohmann::json files = readJson(plain).at("family_files");
    QCOMPARE(files.size(), size_t(1));  // the explorer's and a training family: one file
    QCOMPARE(QString::fromStdString(files[0].at("family").get<std::string>()), id);
    QCOMPARE(QString::fromStdString(files[0].at("hash").get<std::string>()), hash);

    // Reopened: the family and its value come back.
    QVERIFY(w_->parameters()->setFamily("rope"));
    QVERIFY2(sessions->openFile(plain), qPrintable(sessions->lastError()));
    QCOMPARE(QString::fromStdString(w_->parameters()->familyId()), id);
    QCOMPARE(w_->parameters()->values().at("gamma"), 0.0125);

    // The file changes (another module), and the user loads the new one: the session that was
    // saved with the old one is refused, naming the file, and the window stays as it is.
    QVERIFY(QFile::remove(mine) && QFile::copy(module("rope.pt"), mine));
    const auto [reloaded, again] = load(mine);
    QVERIFY2(reloaded, qPrintable(again));
    QCOMPARE(familyBox()->currentText(), QString("RoPE (TorchScript) (file)"));
    QVERIFY(!w_->parameters()->values().count("gamma"));
    QVERIFY(!sessions->openFile(plain));
    QVERIFY2(sessions->lastError().contains("changed since it was saved") &&
                 sessions->lastError().contains(mine),
             qPrintable(sessions->lastError()));
    QCOMPARE(familyBox()->currentText(), QString("RoPE (TorchScript) (file)"));
    QCOMPARE(QString::fromStdString(w_->parameters()->familyId()), id);
    for (QMessageBox* box : w_->findChildren<QMessageBox*>()) box->close();

    // The session with trained models opens from its checkpoints' module, not the file.
    QVERIFY2(sessions->openFile(models), qPrintable(sessions->lastError()));
    QCOMPARE(QString::fromStdString(findFamily(id.toStdString())->hash), hash);
    QCOMPARE(familyBox()->currentText(), QString("Damped RoPE (TorchScript) (file)"));
    QCOMPARE(w_->parameters()->values().at("gamma"), 0.0125);
    QCOMPARE(panel->runCount(), 2);
    QVERIFY(panel->runStep(0) >= 2 && panel->runStep(1) >= 2);
    shoot(*w_, "encoding-session-models.png");

    // A family file that is gone: the session names it.
    nlohmann::json gone = readJson(plain);
    const std::string missing = "file:" + dir.filePath("gone.pt").toStdString();
    gone["explorer"]["family"] = missing;
    gone["explorer"]["values"] = nlohmann::json::object();
    gone["training"]["families"] = {"rope"};
    gone["family_files"] = {{{"family", missing}, {"hash", hash.toStdString()}}};
    const QString gonePath = dir.filePath("gone.poslab");
    QFile out(gonePath);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(QByteArray::fromStdString(gone.dump()));
    out.close();
    QVERIFY(!sessions->openFile(gonePath));
    QVERIFY2(sessions->lastError().contains("gone.pt"), qPrintable(sessions->lastError()));
    QCOMPARE(QString::fromStdString(w_->parameters()->familyId()), id);
    for (QMessageBox* box : w_->findChildren<QMessageBox*>()) box->close();
  }

  // A preset that names a family file not loaded yet: the Presets command loads it into the
  // lists; the kernel view offers it as an overlay over a built-in family.
  void presetAndOverlay() {
    QTemporaryDir dir;
    const QString other = dir.filePath("preset_family.pt");
    QVERIFY(QFile::copy(module("damped.pt"), other));
    const std::string id = "file:" + other.toStdString();
    QVERIFY(!findFamily(id));
    poslab::ExperimentSpec e = test::tinyIndirectSetup({id, "rope"});
    const QString preset = dir.filePath("mine.json");
    QFile out(preset);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(QByteArray::fromStdString(poslab::experimentToJson(e).dump()));
    out.close();
    QString error, note;
    QVERIFY2(shell_->loadPreset(preset, &error, &note), qPrintable(error));
    QVERIFY(findFamily(id));
    QCOMPARE(trainItems(trainFamilies(), QString::fromStdString(id)).size(), 1);
    std::vector<std::string> checked = w_->trainingPanel()->experiment().families;
    std::sort(checked.begin(), checked.end());  // the form lists them in its own order
    QCOMPARE(checked, (std::vector<std::string>{id, "rope"}));

    QVERIFY(w_->parameters()->setFamily("damped-rope"));
    w_->showView(WindowView::Kernel);
    KernelView* kernel = w_->kernelView();
    kernel->setOverlay({id});
    QCOMPARE(kernel->overlay(), std::vector<std::string>{id});
    settle(ExplorerView::Kernel);
    QVERIFY2(kernel->overlayGraph(QString::fromStdString(id)), qPrintable(kernel->overlayStatus()));
    shoot(*w_, "encoding-overlay.png");
    kernel->setOverlay({});
  }

  void cleanupTestCase() { shell_.reset(); }
};

QTEST_MAIN(TestLoadEncoding)
#include "test_load_encoding.moc"
