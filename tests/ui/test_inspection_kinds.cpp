// Issue 31, "one way to ask a trained model": an inspection kind added through the one
// registration (registerInspectionKind, bridge/inspection.h) is asked through the controller's
// one entry, answered on the run's worker by core's free inspection functions, and comes back
// through the one result signal, with the throttle, the step and the errors as for the built-in
// kinds. Its answer is checked against the built-in "samples" kind on the same model: the same
// sample stream, counted independently here.
#include <QSignalSpy>
#include <QtTest>

#include <stdexcept>

#include "bridge/inspect_samples.h"
#include "bridge/inspection.h"
#include "inspection_answers.h"
#include "tiny_setups.h"
#include "training/training_controller.h"
#include "training/training_setup.h"

using namespace poslab::ui;

namespace {
constexpr int kWaitMs = 60000;

// The kind under test: how many of the first `count` sample inputs the model answers correctly.
struct CorrectCountArgs {
  long long count = 0;
};
struct CorrectCount {
  long long step = 0;
  long long correct = -1;
  long long examples = 0;
  std::string error;
};
}  // namespace

Q_DECLARE_METATYPE(CorrectCountArgs)
Q_DECLARE_METATYPE(CorrectCount)

namespace {
constexpr const char* kCorrectCount = "test-correct-count";
constexpr const char* kAlwaysFails = "test-always-fails";

void registerTestKinds() {
  registerInspectionKind(makeInspectionKind<CorrectCountArgs, CorrectCount>(
      kCorrectCount, [](const poslab::InspectedModel& m, const CorrectCountArgs& a, CorrectCount& r,
                        const KeepGoing&) {
        const auto predictions = poslab::samplePredictions(m, a.count, 12);
        r.examples = static_cast<long long>(predictions.size());
        r.correct = 0;
        for (const auto& p : predictions) r.correct += p.correct() ? 1 : 0;
      }));
  registerInspectionKind(makeInspectionKind<CorrectCountArgs, CorrectCount>(
      kAlwaysFails, [](const poslab::InspectedModel&, const CorrectCountArgs&, CorrectCount&,
                       const KeepGoing&) { throw std::runtime_error("this kind always fails"); }));
}

// A tiny indirect-indexing run with one step taken, to be inspected.
bool oneStepTaken(TrainingController& c) {
  const poslab::ExperimentSpec setup = test::tinyIndirectSetup({"rope"});
  c.setSetup(setup);
  c.stepOnce(formFromExperiment(setup));
  return QTest::qWaitFor([&] { return c.stepCount() == 1; }, kWaitMs);
}

}  // namespace

class TestInspectionKinds : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { registerTestKinds(); }

  void aKindAddedThroughTheRegistrationWorksEndToEnd() {
    QVERIFY(!inspectionKind(kCorrectCount).id.empty());
    TrainingController c;
    QVERIFY(oneStepTaken(c));
    QSignalSpy spy(&c, &TrainingController::inspected);
    QSignalSpy sent(&c, &TrainingController::inspectionSent);
    c.inspect(0, inspectionRequest(kCorrectCount, CorrectCountArgs{6}));
    c.inspect(0, inspectionRequest(kSamplesInspection, SamplesArgs{6, 12}));
    QTRY_COMPARE_WITH_TIMEOUT(spy.count(), 2, kWaitMs);
    QCOMPARE(sent.count(), 2);
    const auto counted = test::answersOf<CorrectCount>(spy, kCorrectCount);
    const auto samples = test::answersOf<TrainingSamples>(spy, kSamplesInspection);
    QCOMPARE(counted.size(), size_t(1));
    QCOMPARE(samples.size(), size_t(1));
    QVERIFY2(counted[0].error.empty(), counted[0].error.c_str());
    QCOMPARE(counted[0].step, 1LL);
    QCOMPARE(counted[0].examples, 6LL);
    long long correct = 0;
    for (const auto& e : samples[0].examples) correct += e.prediction == e.target ? 1 : 0;
    QCOMPARE(counted[0].correct, correct);
  }

  // One throttle per kind: while one request of the new kind is in flight the next two wait and
  // only the newest goes; a request of another kind is not held back by it.
  void theNewKindIsThrottledOnItsOwn() {
    TrainingController c;
    QVERIFY(oneStepTaken(c));
    QSignalSpy spy(&c, &TrainingController::inspected);
    c.inspect(0, inspectionRequest(kCorrectCount, CorrectCountArgs{2}));
    c.inspect(0, inspectionRequest(kCorrectCount, CorrectCountArgs{3}));
    c.inspect(0, inspectionRequest(kCorrectCount, CorrectCountArgs{4}));
    c.inspect(0, inspectionRequest(kSamplesInspection, SamplesArgs{1, 0}));
    QTRY_COMPARE_WITH_TIMEOUT(spy.count(), 3, kWaitMs);
    QTest::qWait(300);
    QCOMPARE(spy.count(), 3);
    const auto counted = test::answersOf<CorrectCount>(spy, kCorrectCount);
    QCOMPARE(counted.size(), size_t(2));
    QCOMPARE(counted[0].examples, 2LL);
    QCOMPARE(counted[1].examples, 4LL);
    QCOMPARE(test::answersOf<TrainingSamples>(spy, kSamplesInspection).size(), size_t(1));
  }

  // A kind that throws answers with its error; an unregistered kind answers with no value; the
  // arguments of another kind are refused by name.
  void errorsComeBackAsResults() {
    TrainingController c;
    QVERIFY(oneStepTaken(c));
    QSignalSpy spy(&c, &TrainingController::inspected);
    c.inspect(0, inspectionRequest(kAlwaysFails, CorrectCountArgs{1}));
    c.inspect(0, inspectionRequest("no-such-kind", CorrectCountArgs{1}));
    c.inspect(0, inspectionRequest(kCorrectCount, SamplesArgs{1, 0}));
    QTRY_COMPARE_WITH_TIMEOUT(spy.count(), 3, kWaitMs);
    const auto failed = test::answersOf<CorrectCount>(spy, kAlwaysFails);
    QCOMPARE(failed.size(), size_t(1));
    QCOMPARE(failed[0].error, std::string("this kind always fails"));
    bool unknownAnswered = false;
    for (const auto& args : spy) {
      const auto r = args.at(1).value<InspectionResult>();
      if (r.kind == "no-such-kind") unknownAnswered = !r.value.isValid();
    }
    QVERIFY(unknownAnswered);
    const auto wrongArgs = test::answersOf<CorrectCount>(spy, kCorrectCount);
    QCOMPARE(wrongArgs.size(), size_t(1));
    QVERIFY2(wrongArgs[0].error.find("arguments of another kind") != std::string::npos,
             wrongArgs[0].error.c_str());
    QCOMPARE(wrongArgs[0].correct, -1LL);
  }
};

QTEST_MAIN(TestInspectionKinds)
#include "test_inspection_kinds.moc"
