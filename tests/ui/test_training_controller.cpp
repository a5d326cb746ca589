// The training tab's widget-free parts under a QCoreApplication (no QApplication: a widget made
// here would abort the test, so this also proves they need none). The form <-> experiment
// mapping through core's JSON and strict reader (a form edit lands on its key and nowhere else,
// the form's ranges lie within core's limits, bad text keeps the setup's value and says why), and
// the run controller: runs built once per setup, play / pause / step / reset / stop, one
// inspection request in flight per kind with the newest waiting, divergence, checkpoints saved
// and continued, and the whole-run budget on every path that starts or grows a run.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <limits>

#include "bridge/inspect_attention.h"
#include "io/json_fields.h"
#include "tiny_setups.h"
#include "training/training_controller.h"
#include "training/training_setup.h"

using namespace poslab::ui;
using nlohmann::json;

namespace {
constexpr int kWaitMs = 60000;

// The experiment JSON's value at a key path ("config.model.d_model").
json at(const poslab::ExperimentSpec& e, std::string path) {
  std::replace(path.begin(), path.end(), '.', '/');
  return poslab::experimentToJson(e).at(json::json_pointer("/" + path));
}
}  // namespace

class TestTrainingController : public QObject {
  Q_OBJECT

  static poslab::ExperimentSpec tiny(std::vector<std::string> families = {"rope"}) {
    return test::tinyIndirectSetup(std::move(families));
  }

 private Q_SLOTS:
  // A setup shown in the form and read back is the setup, digit for digit (lr 2.5e-5 included).
  void formRoundTripIsExact() {
    poslab::ExperimentSpec e = tiny({"pope", "rope"});
    e.base.optim.lr = 2.5e-5;
    e.base.optim.positionLrScale = 0.0125;
    e.base.model.mlpRatio = 2;  // not in the form: comes from the setup
    e.base.model.pinned = {"gamma"};
    const poslab::ExperimentSpec back = experimentFromForm(e, formFromExperiment(e));
    QCOMPARE(poslab::experimentToJson(back).dump(), poslab::experimentToJson(e).dump());
  }

  // Each form value lands on its own key of the experiment and changes nothing else.
  void eachFormValueLandsOnItsKey() {
    const poslab::ExperimentSpec e = tiny();
    struct Edit {
      const char* path;
      std::function<void(TrainingFormSettings&)> edit;
      json expected;
    };
    const std::vector<Edit> edits = {
        {"config.run.steps", [](auto& f) { f.steps = 77; }, 77},
        {"config.task.train_length", [](auto& f) { f.trainLength = 14; }, 14},
        {"config.optim.batch", [](auto& f) { f.batch = 5; }, 5},
        {"config.optim.lr", [](auto& f) { f.lr = 0.004; }, 0.004},
        {"config.model.d_model", [](auto& f) { f.dModel = 48; }, 48},
        {"config.model.heads", [](auto& f) { f.heads = 3; }, 3},
        {"config.model.layers", [](auto& f) { f.layers = 1; }, 1},
        {"config.optim.position_lr_scale", [](auto& f) { f.positionLrScale = 7; }, 7.0},
        {"config.run.eval_every", [](auto& f) { f.evalEvery = 9; }, 9},
        {"config.run.eval_sequences", [](auto& f) { f.evalSequences = 3; }, 3},
        {"config.run.eval_lengths", [](auto& f) { f.evalLengths = " 12, 20,40"; }, {12, 20, 40}},
        {"config.run.seed", [](auto& f) { f.seed = 5; }, 5},
        {"config.run.device", [](auto& f) { f.device = "cpu"; }, "cpu"},
    };
    for (const Edit& x : edits) {
      TrainingFormSettings form = formFromExperiment(e);
      x.edit(form);
      QString problem;
      const poslab::ExperimentSpec got = experimentFromForm(e, form, &problem);
      QVERIFY2(problem.isEmpty(), qPrintable(problem));
      QCOMPARE(at(got, x.path).dump(), x.expected.dump());
      // Everything else as in the setup (the seed also sets the seed list).
      json want = poslab::experimentToJson(e);
      std::string path = std::string("/") + x.path;
      std::replace(path.begin(), path.end(), '.', '/');
      want[json::json_pointer(path)] = x.expected;
      if (std::string(x.path) == "config.run.seed") want["seeds"] = {5};
      QCOMPARE(poslab::experimentToJson(got).dump(), want.dump());
    }
  }

  // The form's maximum of every value is one core accepts, and one more is refused by
  // trainingSetupProblem naming the key (so a setup the CLI runs is one the GUI shows, and the
  // names are core's keys). The keys and the setters here are written out independently of
  // training_setup.cpp's table.
  void formRangesLieWithinCoresLimits() {
    using Set = std::function<void(poslab::ExperimentSpec&, double)>;
    using S = TrainingFormSettings;
    struct Row {
      FormMember member;
      const char* path;
      Set set;
    };
    const std::vector<Row> rows = {
        {&S::steps, "config.run.steps", [](auto& e, double v) { e.base.run.steps = (long long)v; }},
        {&S::trainLength, "config.task.train_length",
         [](auto& e, double v) { e.base.task.trainLength = (long long)v; }},
        {&S::batch, "config.optim.batch",
         [](auto& e, double v) { e.base.optim.batch = (long long)v; }},
        {&S::lr, "config.optim.lr", [](auto& e, double v) { e.base.optim.lr = v; }},
        {&S::dModel, "config.model.d_model",
         [](auto& e, double v) { e.base.model.dModel = (long long)v; }},
        {&S::heads, "config.model.heads",
         [](auto& e, double v) { e.base.model.heads = (long long)v; }},
        {&S::layers, "config.model.layers",
         [](auto& e, double v) { e.base.model.layers = (long long)v; }},
        {&S::evalEvery, "config.run.eval_every",
         [](auto& e, double v) { e.base.run.evalEvery = (long long)v; }},
        {&S::evalSequences, "config.run.eval_sequences",
         [](auto& e, double v) { e.base.run.evalSequences = (long long)v; }},
        {&S::positionLrScale, "config.optim.position_lr_scale",
         [](auto& e, double v) { e.base.optim.positionLrScale = v; }},
    };
    for (const auto& [member, path, set] : rows) {
      const FormRange r = formRange(member);
      QCOMPARE(formPath(member), std::string(path));
      QVERIFY2(r.max > r.min, path);
      for (double v : {r.min, r.max}) {
        poslab::ExperimentSpec e = tiny();
        set(e, v);
        try {  // core's strict reader takes it
          e = poslab::readExperiment(poslab::experimentToJson(e), poslab::JsonPath{"test", ""});
        } catch (const std::exception& ex) {
          QFAIL(qPrintable(QString("%1 = %2: core refuses %3").arg(path).arg(v).arg(ex.what())));
        }
        // The form holds it. A run that large may still be over a work budget (train length
        // 65536 needs about 1.5e3 GiB a step): refused behind 'config', never as out of range
        // (wholeRunBudgetOnEveryPath).
        const QString problem = trainingSetupProblem(e);
        QVERIFY2(problem.isEmpty() ||
                     (problem.startsWith("field 'config': ") && problem.contains("budget")),
                 qPrintable(problem));
        QCOMPARE(at(e, path).get<double>(), v);
      }
      poslab::ExperimentSpec over = tiny();
      set(over, r.max * 2);
      const QString problem = trainingSetupProblem(over, "training.");
      QVERIFY2(problem.startsWith(QString("field 'training.%1' = ").arg(path)) &&
                   problem.contains("outside the training panel's range"),
               qPrintable(problem));
    }
  }

  // Text that is not a value keeps the setup's value, says why, and nothing can run from it;
  // an eval length core refuses (1) is named with core's key.
  void badTextKeepsTheSetupAndSaysWhy() {
    const poslab::ExperimentSpec e = tiny();
    TrainingFormSettings form = formFromExperiment(e);
    form.evalLengths = "12,x";
    QString problem, error;
    poslab::ExperimentSpec got = experimentFromForm(e, form, &problem);
    QCOMPARE(got.base.run.evalLengths, e.base.run.evalLengths);
    QVERIFY2(problem.contains("eval lengths '12,x' is not a list"), qPrintable(problem));
    QVERIFY(runSpecsFromForm(e, form, &error).empty());
    QCOMPARE(error, problem);
    form.evalLengths = "1,12";
    got = experimentFromForm(e, form, &problem);
    QCOMPARE(got.base.run.evalLengths, e.base.run.evalLengths);
    QVERIFY2(problem.contains("config.run.eval_lengths[0]"), qPrintable(problem));
    form = formFromExperiment(e);
    form.taskOptions.error = "task option 'omega': 'fast' is not a number";
    form.taskOptions.options = {{"alphabet", 20}};
    got = experimentFromForm(e, form, &problem);
    QCOMPARE(got.base.task.options, e.base.task.options);
    QCOMPARE(problem, form.taskOptions.error);
    form = formFromExperiment(e);
    form.families = {};
    QVERIFY(runSpecsFromForm(e, form, &error).empty());
    QVERIFY2(error.contains("check 1 to 4 families (0 checked)"), qPrintable(error));
  }

  // Another task: the setup's variants go (they are its task's), and options meant for another
  // task are not applied.
  void anotherTaskDropsTheSetupsVariants() {
    poslab::ExperimentSpec e = tiny();
    e.base.task.id = "kernel-lm";
    e.base.task.options.clear();
    e.variants = {{{"kernel", "first_jet"}}};
    TrainingFormSettings form = formFromExperiment(e);
    QCOMPARE(experimentFromForm(e, form).variants.size(), size_t(1));
    form.task = "indirect-indexing";  // options still kernel-lm's
    form.taskOptions.options = {{"omega", 0.5}};
    const poslab::ExperimentSpec got = experimentFromForm(e, form);
    QVERIFY(got.variants.empty());
    QCOMPARE(got.base.task.id, std::string("indirect-indexing"));
    QVERIFY(got.base.task.options.empty());
  }

  // The whole lifecycle without a widget: the runs are built once for a setup, step, play, pause,
  // reset and stop, and the state text follows.
  void lifecycleWithoutWidgets() {
    TrainingController c;
    const poslab::ExperimentSpec e = tiny({"rope", "alibi"});
    c.setSetup(e);
    const TrainingFormSettings form = formFromExperiment(e);
    int started = 0;
    connect(&c, &TrainingController::runsStarted, this, [&] { ++started; });
    QCOMPARE(c.runStateText(), QString("not started"));
    c.stepOnce(form);
    QCOMPARE(c.runCount(), 2);
    QCOMPARE(started, 1);
    QCOMPARE(c.runFamily(0), std::string("rope"));  // the family list's (MATH) order
    QTRY_COMPARE_WITH_TIMEOUT(c.stepCount(), 1LL, kWaitMs);
    TrainingRun* first = c.run(0);
    QVERIFY(c.ensureRuns(form));  // same setup: same runs
    QCOMPARE(c.run(0), first);
    QCOMPARE(started, 1);
    QCOMPARE(c.runStateText(), QString("paused"));
    c.play(form);
    QVERIFY(c.isPlaying());
    QCOMPARE(c.runStateText(), QString("playing"));
    QTRY_VERIFY_WITH_TIMEOUT(c.stepCount() >= 3, kWaitMs);
    c.pause();
    QVERIFY(!c.isPlaying());
    QTRY_VERIFY_WITH_TIMEOUT(c.runStateText() == "paused", kWaitMs);
    QSignalSpy reset(&c, &TrainingController::runsReset);
    c.reset();
    QCOMPARE(reset.count(), 1);
    QCOMPARE(c.stepCount(), 0LL);
    QVERIFY(c.latestEval(0).empty());
    TrainingFormSettings other = form;
    other.seed = 1;  // another setup: new runs
    c.stepOnce(other);
    QCOMPARE(started, 2);
    QCOMPARE(c.run(0)->spec().config.run.seed, uint64_t(1));
    QTRY_COMPARE_WITH_TIMEOUT(c.stepCount(), 1LL, kWaitMs);
    QSignalSpy cleared(&c, &TrainingController::runsCleared);
    c.stop();
    QCOMPARE(cleared.count(), 1);
    QCOMPARE(c.runCount(), 0);
    QCOMPARE(c.runStateText(), QString("not started"));
    QCOMPARE(c.experiment(form).base.run.seed, uint64_t(0));  // the setup stays
  }

  // One attention request in flight: a second and third asked meanwhile wait, and only the newest
  // (length 15) is sent when the first answer comes. Two answers in all.
  void inspectionRequestsWaitForTheAnswer() {
    TrainingController c;
    c.setSetup(tiny());
    c.stepOnce(formFromExperiment(tiny()));
    QTRY_COMPARE_WITH_TIMEOUT(c.stepCount(), 1LL, kWaitMs);
    std::vector<long long> answered;
    connect(&c, &TrainingController::inspected, this, [&](int, const InspectionResult& r) {
      answered.push_back(r.value.value<TrainingAttention>().sample.length);
    });
    auto attention = [](long long length) {
      return inspectionRequest(kAttentionInspection, AttentionArgs{length, 64});
    };
    c.inspect(0, attention(12));
    c.inspect(0, attention(13));
    c.inspect(0, attention(15));
    c.inspect(5, attention(12));  // no such run: ignored
    QTRY_COMPARE_WITH_TIMEOUT(answered.size(), size_t(2), kWaitMs);
    QTest::qWait(300);
    QCOMPARE(answered, std::vector<long long>({12, 15}));
  }

  // A NaN weight makes the next step diverge: the run pauses itself, the state says at which
  // step, and Play leaves it paused until Reset.
  void divergedRunStaysPausedUntilReset() {
    TrainingController c;
    c.setSetup(tiny());
    const TrainingFormSettings form = formFromExperiment(tiny());
    c.stepOnce(form);
    QTRY_COMPARE_WITH_TIMEOUT(c.stepCount(), 1LL, kWaitMs);
    c.run(0)->setParameterValue("head.weight", std::numeric_limits<double>::quiet_NaN());
    c.stepOnce(form);
    QTRY_VERIFY_WITH_TIMEOUT(c.runStateText().startsWith("diverged at step 1"), kWaitMs);
    QVERIFY(c.allFinished());
    QVERIFY2(c.statusText().contains("rope paused itself"), qPrintable(c.statusText()));
    c.play(form);
    QVERIFY(!c.isPlaying());
    QVERIFY2(c.statusText().contains("press Reset"), qPrintable(c.statusText()));
  }

  // Saved checkpoints continue where they were; one from another setup is refused naming the
  // file, and the runs stay.
  void checkpointsSaveAndContinue() {
    QTemporaryDir dir;
    const poslab::ExperimentSpec e = tiny();
    const QStringList paths{dir.filePath("rope.pt")};
    {
      TrainingController c;
      c.setSetup(e);
      c.stepOnce(formFromExperiment(e));
      QTRY_COMPARE_WITH_TIMEOUT(c.stepCount(), 1LL, kWaitMs);
      c.stepOnce(formFromExperiment(e));
      QTRY_COMPARE_WITH_TIMEOUT(c.stepCount(), 2LL, kWaitMs);
      bool done = false;
      std::vector<TrainingController::SavedCheckpoint> saved;
      QString error;
      QVERIFY2(c.saveCheckpoints(
                   paths,
                   [&](const auto& s, const QString& e) {
                     saved = s;
                     error = e;
                     done = true;
                   },
                   &error),
               qPrintable(error));
      QVERIFY(c.isSavingCheckpoints());
      QTRY_VERIFY_WITH_TIMEOUT(done, kWaitMs);
      QVERIFY2(error.isEmpty(), qPrintable(error));
      QCOMPARE(saved.size(), size_t(1));
      QCOMPARE(saved[0].step, 2LL);
      QCOMPARE(saved[0].family, std::string("rope"));
    }
    TrainingController c;
    QString error;
    QVERIFY2(c.startFromCheckpoints(e, formFromExperiment(e), paths, &error), qPrintable(error));
    QCOMPARE(c.runStep(0), 2LL);
    QCOMPARE(c.experiment(formFromExperiment(e)).name, e.name);  // the setup is the loaded one
    TrainingRun* loaded = c.run(0);
    poslab::ExperimentSpec other = e;
    other.base.model.dModel = 16;
    QVERIFY(!c.startFromCheckpoints(other, formFromExperiment(other), paths, &error));
    QVERIFY2(error.contains("rope.pt") && error.contains("d_model"), qPrintable(error));
    QCOMPARE(c.run(0), loaded);
    c.stepOnce(formFromExperiment(e));
    QTRY_COMPARE_WITH_TIMEOUT(c.stepCount(), 3LL, kWaitMs);  // continues from the checkpoint
  }

  // Issue 34: the whole-run budget (core's trainingRunBudgetProblem) on every path that starts a
  // run or lets its work grow, not only Play: Step on a fresh form, Play and Step after the form's
  // values changed while paused (the paused runs stay as they were), checkpoints continued with a
  // setup over the budget, and a setup loaded (preset, lesson step, session). A million steps of
  // batch 8 at length 1024 need about 3 x 8 x 1024 x (1024 x 16 + ...) + 8 x 1024 x 5e4 = 9e8
  // multiply-adds each: 9e14, over the 5e14 of a CPU.
  void wholeRunBudgetOnEveryPath() {
    poslab::ExperimentSpec small = tiny();
    small.base.task.id = "kernel-lm";
    small.base.task.options.clear();
    small.base.task.trainLength = 16;
    small.base.model.dModel = 16;
    small.base.optim.batch = 4;
    small.base.run.evalLengths = {16};
    poslab::ExperimentSpec big = small;
    big.base.run.steps = 1000000;
    big.base.task.trainLength = 1024;
    big.base.optim.batch = 8;
    const TrainingFormSettings smallForm = formFromExperiment(small);
    const TrainingFormSettings bigForm = formFromExperiment(big);
    const QString refusal =
        "steps, batch and train length: 1000000 steps of batch 8 at length 1024";
    auto refused = [&](const QString& text) {
      return text.contains(refusal) && text.contains("over the budget of 5e+14 on a CPU") &&
             !text.contains('\n');
    };
    {  // Step and Play on a fresh form: nothing is built.
      TrainingController c;
      c.setSetup(small);
      c.stepOnce(bigForm);
      QCOMPARE(c.runCount(), 0);
      QVERIFY2(refused(c.statusText()), qPrintable(c.statusText()));
      c.setStatus({});
      c.play(bigForm);
      QCOMPARE(c.runCount(), 0);
      QVERIFY(!c.isPlaying());
      QVERIFY2(refused(c.statusText()), qPrintable(c.statusText()));
    }
    QTemporaryDir dir;
    const QStringList paths{dir.filePath("rope.pt")};
    {  // Paused runs, then the form asks for more: Play and Step leave the runs as they were.
      TrainingController c;
      c.setSetup(small);
      c.stepOnce(smallForm);
      QTRY_COMPARE_WITH_TIMEOUT(c.stepCount(), 1LL, kWaitMs);
      TrainingRun* paused = c.run(0);
      c.play(bigForm);
      QVERIFY(!c.isPlaying());
      QCOMPARE(c.runCount(), 1);
      QCOMPARE(c.run(0), paused);
      QVERIFY2(refused(c.statusText()), qPrintable(c.statusText()));
      c.setStatus({});
      c.stepOnce(bigForm);
      QTest::qWait(300);
      QCOMPARE(c.stepCount(), 1LL);  // no step was taken
      QCOMPARE(c.run(0), paused);
      QVERIFY2(refused(c.statusText()), qPrintable(c.statusText()));
      bool done = false;
      QString error;
      QVERIFY2(c.saveCheckpoints(
                   paths,
                   [&](const auto&, const QString& e) {
                     error = e;
                     done = true;
                   },
                   &error),
               qPrintable(error));
      QTRY_VERIFY_WITH_TIMEOUT(done, kWaitMs);
      QVERIFY2(error.isEmpty(), qPrintable(error));
    }
    {  // Checkpoints continued under a setup over the budget: refused, naming the budget.
      TrainingController c;
      QString error;
      QVERIFY(!c.startFromCheckpoints(big, bigForm, paths, &error));
      QVERIFY2(refused(error), qPrintable(error));
      QCOMPARE(c.runCount(), 0);
      QVERIFY2(c.startFromCheckpoints(small, smallForm, paths, &error), qPrintable(error));
    }
    // A setup loaded into the tab (a preset, a lesson step) or a session's training block: refused
    // at load with the same line behind the field, not at Play.
    QVERIFY(trainingSetupProblem(small).isEmpty());
    const QString loaded = trainingSetupProblem(big);
    QVERIFY2(loaded.startsWith("field 'config': ") && refused(loaded), qPrintable(loaded));
    const QString session = trainingSetupProblem(big, "training.", /*checkRuns=*/true);
    QVERIFY2(session.startsWith("field 'training.config': ") && refused(session),
             qPrintable(session));
  }
};

QTEST_GUILESS_MAIN(TestTrainingController)
#include "test_training_controller.moc"
