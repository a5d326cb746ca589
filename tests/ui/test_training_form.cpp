// The training tab's setup form: task options and model size into the setup (and back from a
// loaded one), the architecture bundles, the labels of task options, values core refuses, and a
// train length that follows what the chosen task can generate.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <utility>

#include "panel_actions.h"
#include "tiny_setups.h"
#include "train/architecture.h"
#include "training/family_start_form.h"
#include "training/training_panel.h"
#include "training/training_setup_form.h"

using namespace poslab::ui;

class TestTrainingForm : public QObject {
  Q_OBJECT

  static poslab::ExperimentSpec tinyIndirect(std::vector<std::string> families) {
    return test::tinyIndirectSetup(std::move(families));
  }

 private Q_SLOTS:
  // Loading a setup shows its task options and model size; edits go back into experiment().
  // kernel-lm's default omega = 10000^(-6/D_head) follows the model's head size, as the trainer
  // uses it: the form's "auto" value must change when d_model or heads do.
  void kernelLmAutoOmegaFollowsTheHeadSize() {
    TrainingPanel panel;
    panel.findChild<QComboBox*>("task")->setCurrentText("kernel-lm");
    auto autoOmega = [&] {
      const QString text = panel.findChild<QLineEdit*>("option_omega")->placeholderText();
      return text.section(':', 1).trimmed().toDouble();
    };
    panel.findChild<QSpinBox*>("dModel")->setValue(64);
    panel.findChild<QSpinBox*>("heads")->setValue(4);  // D_head 16
    QVERIFY(std::abs(autoOmega() - std::pow(10000.0, -6.0 / 16)) < 1e-5);
    panel.findChild<QSpinBox*>("heads")->setValue(1);  // D_head 64
    QVERIFY(std::abs(autoOmega() - std::pow(10000.0, -6.0 / 64)) < 1e-5);
    panel.findChild<QSpinBox*>("dModel")->setValue(32);  // D_head 32
    QVERIFY(std::abs(autoOmega() - std::pow(10000.0, -6.0 / 32)) < 1e-5);
  }

  void taskOptionsAndModelSizeRoundTrip() {
    TrainingPanel panel;
    poslab::ExperimentSpec e = tinyIndirect({"rope"});
    e.base.task.options = {{"alphabet", 20}, {"max_offset", 3}};
    e.base.model.dModel = 48;
    e.base.model.heads = 3;
    e.base.model.layers = 1;
    e.base.optim.positionLrScale = 5;
    e.base.run.evalEvery = 7;
    e.base.run.evalSequences = 9;
    test::loadExperiment(panel, e);
    QCOMPARE(panel.findChild<QSpinBox*>("option_alphabet")->value(), 20);
    QCOMPARE(panel.findChild<QSpinBox*>("option_max_offset")->value(), 3);
    QCOMPARE(panel.findChild<QSpinBox*>("dModel")->value(), 48);
    QCOMPARE(panel.findChild<QSpinBox*>("heads")->value(), 3);
    QCOMPARE(panel.findChild<QSpinBox*>("layers")->value(), 1);
    QCOMPARE(panel.findChild<QDoubleSpinBox*>("positionLrScale")->value(), 5.0);
    QCOMPARE(panel.findChild<QSpinBox*>("evalEvery")->value(), 7);
    QCOMPARE(panel.findChild<QSpinBox*>("evalSequences")->value(), 9);
    poslab::ExperimentSpec back = panel.experiment();
    QCOMPARE(back.base.task.options, e.base.task.options);
    QCOMPARE(back.base.model.dModel, 48LL);
    QCOMPARE(back.base.model.heads, 3LL);
    QCOMPARE(back.base.optim.positionLrScale, 5.0);
    QCOMPARE(back.base.run.evalEvery, 7LL);
    QCOMPARE(back.base.run.evalSequences, 9LL);
    panel.findChild<QSpinBox*>("option_alphabet")->setValue(24);
    panel.findChild<QSpinBox*>("layers")->setValue(2);
    back = panel.experiment();
    QCOMPARE(back.base.task.options.at("alphabet"), 24.0);
    QCOMPARE(back.base.model.layers, 2LL);
    // The default stays implicit: max_offset back at 8 leaves the option out.
    panel.findChild<QSpinBox*>("option_max_offset")->setValue(8);
    QCOMPARE(panel.experiment().base.task.options.count("max_offset"), size_t(0));

    // Another task shows its own settings: kernel-lm's kernel and its derived omega.
    panel.findChild<QComboBox*>("task")->setCurrentText("kernel-lm");
    auto* kernel = panel.findChild<QComboBox*>("taskKernel");
    QVERIFY(kernel);
    QCOMPARE(kernel->currentText(), QString("mixed_raw"));
    auto* omega = panel.findChild<QLineEdit*>("option_omega");
    QVERIFY(omega);
    QVERIFY2(omega->placeholderText().startsWith("auto: 0.0316"),
             qPrintable(omega->placeholderText()));
    kernel->setCurrentText("damped_mixed");
    omega->setText("0.25");
    panel.findChild<QCheckBox*>("option_stochastic")->setChecked(true);
    back = panel.experiment();
    QCOMPARE(back.base.task.kernel, std::string("damped_mixed"));
    QCOMPARE(back.base.task.options.at("omega"), 0.25);
    QCOMPARE(back.base.task.options.at("stochastic"), 1.0);
    QVERIFY(!back.base.task.options.count("alphabet"));
    panel.findChild<QComboBox*>("task")->setCurrentText("sector-teacher");
    // The PJ-RoPE reference's default target, not the first teacher of the list (phase).
    QCOMPARE(panel.findChild<QComboBox*>("taskKernel")->currentText(), QString("recency_weak_jet"));
    QVERIFY(panel.findChild<QCheckBox*>("option_teacher"));
    panel.findChild<QComboBox*>("task")->setCurrentText("byte-lm");
    QVERIFY(panel.findChild<QLineEdit*>("textFile"));
    QVERIFY(!panel.findChild<QComboBox*>("taskKernel"));

    // The attention view offers the train length and the evaluation lengths up to 1024 (the
    // worker materialises T x T weights per head).
    panel.findChild<QSpinBox*>("trainLength")->setValue(64);
    panel.findChild<QLineEdit*>("evalLengths")->setText("64,256,4096");
    auto* lengths = panel.findChild<QComboBox*>("modelAttentionLength");
    QStringList offered;
    for (int i = 0; i < lengths->count(); ++i) offered << lengths->itemText(i);
    QCOMPARE(offered, QStringList({"64", "256"}));
  }

  // The architecture box sets a reference's bundle over the setup, keeps the form's own values,
  // and shows the architecture a loaded setup names.
  void architectureChoiceSetsItsBundle() {
    TrainingPanel panel;
    test::loadExperiment(panel, tinyIndirect({"rope"}));
    auto* architecture = panel.findChild<QComboBox*>("architecture");
    QVERIFY(architecture);
    QCOMPARE(architecture->currentText(), QString("poslab"));
    QCOMPARE(architecture->count(), static_cast<int>(poslab::architectureIds().size()));
    architecture->setCurrentText("pj-reference");
    poslab::ExperimentSpec back = panel.experiment();
    QCOMPARE(back.architecture, std::string("pj-reference"));
    QCOMPARE(back.base.model.includeSelf, false);
    QCOMPARE(back.base.model.norm, std::string("layer"));
    QCOMPARE(back.base.model.mlpRatio, 2LL);
    QCOMPARE(back.base.optim.schedule, std::string("constant"));
    QCOMPARE(back.base.optim.weightDecay, 1e-4);
    QCOMPARE(back.base.model.dModel, 32LL);  // the form's size stays
    architecture->setCurrentText("poslab");  // and back: PosLab's own choices again
    back = panel.experiment();
    QCOMPARE(back.architecture, std::string("poslab"));
    QCOMPARE(back.base.model.includeSelf, true);
    QCOMPARE(back.base.model.mlpRatio, poslab::ModelConfig{}.mlpRatio);
    QCOMPARE(back.base.optim.schedule, poslab::OptimConfig{}.schedule);

    poslab::ExperimentSpec jordan = tinyIndirect({"rope"});
    jordan.architecture = "jordan-reference";
    poslab::applyArchitecture("jordan-reference", jordan.base);
    test::loadExperiment(panel, jordan);
    QCOMPARE(architecture->currentText(), QString("jordan-reference"));
    back = panel.experiment();
    QCOMPARE(back.architecture, std::string("jordan-reference"));
    QCOMPARE(back.base.model.tieEmbedding, true);
    QCOMPARE(back.base.model.bias, false);
  }

  // A value core rejects gives core's message in the status, and nothing starts.
  void invalidSettingsAreReportedAndNothingStarts() {
    TrainingPanel panel;
    test::loadExperiment(panel, tinyIndirect({"rope"}));
    auto expectRefused = [&](const char* needle) {
      test::clickButton(&panel, "playButton");
      QCOMPARE(panel.runCount(), 0);
      QVERIFY(!panel.isPlaying());
      QVERIFY2(panel.statusText().contains(needle), qPrintable(panel.statusText()));
    };
    panel.findChild<QSpinBox*>("heads")->setValue(3);  // 32 is not divisible by 3
    expectRefused("d_model = 32 is not divisible by heads = 3");
    panel.findChild<QSpinBox*>("heads")->setValue(2);
    panel.findChild<QSpinBox*>("option_alphabet")->setValue(8);
    panel.findChild<QSpinBox*>("option_max_offset")->setValue(8);
    expectRefused("alphabet 8 is too small for max_offset 8");
    panel.findChild<QSpinBox*>("option_alphabet")->setValue(16);
    panel.findChild<QSpinBox*>("option_max_offset")->setValue(2);
    panel.findChild<QSpinBox*>("trainLength")->setValue(40);  // more than 16 characters + 3
    expectRefused("train length 40 is outside what task indirect-indexing can generate");
    panel.findChild<QComboBox*>("task")->setCurrentText("kernel-lm");
    panel.findChild<QLineEdit*>("option_omega")->setText("fast");
    expectRefused("task option 'omega': 'fast' is not a number");
    panel.findChild<QComboBox*>("task")->setCurrentText("byte-lm");
    panel.findChild<QLineEdit*>("textFile")->setText("/no/such/file.txt");
    expectRefused("does not exist");
  }

  // Issue #16 (3): task options with a symbol in the math are labelled by it (ω, ω₂, γ, c), the
  // key in the tooltip; the kernel list's tips give each kernel's K(d).
  void taskOptionsAreLabelledWithSymbols() {
    TrainingPanel panel;
    panel.findChild<QComboBox*>("task")->setCurrentText("kernel-lm");
    const std::pair<const char*, QString> rows[] = {{"option_omega", QStringLiteral("ω")},
                                                    {"option_omega2", QStringLiteral("ω₂")},
                                                    {"option_gamma", QStringLiteral("γ")},
                                                    {"option_scaled_c", QStringLiteral("c")}};
    for (const auto& [object, want] : rows) {
      auto* field = panel.findChild<QWidget*>(object);
      QVERIFY2(field, object);
      auto* form = qobject_cast<QFormLayout*>(field->parentWidget()->layout());
      QVERIFY(form);
      auto* label = qobject_cast<QLabel*>(form->labelForField(field));
      QVERIFY(label);
      QCOMPARE(label->text(), want);
      QVERIFY2(field->toolTip().startsWith(QString(object).mid(7) + ":"),
               qPrintable(field->toolTip()));
    }
    auto* kernel = panel.findChild<QComboBox*>("taskKernel");
    QVERIFY(kernel);
    const int i = kernel->findText("damped_mixed");
    QVERIFY(i >= 0);
    QVERIFY2(kernel->itemData(i, Qt::ToolTipRole).toString().contains(QStringLiteral("e⁻ᵞᵈ")),
             qPrintable(kernel->itemData(i, Qt::ToolTipRole).toString()));
  }

  // kv-retrieval stores P key-value pairs, a query and its answer: a sequence needs 3P + 3 tokens
  // (P = 32 by default: 99). Picking it with the form's 64 raises the train length to what the
  // task can generate instead of a run that is refused; fewer pairs lower the floor, and a
  // loaded setup keeps its own length.
  void trainLengthRisesToWhatTheTaskNeeds() {
    TrainingPanel panel;
    auto* length = panel.findChild<QSpinBox*>("trainLength");
    const int formMinimum = length->minimum();
    length->setValue(64);
    panel.findChild<QComboBox*>("task")->setCurrentText("kv-retrieval");
    const int need32 = 3 * 32 + 3;
    QCOMPARE(length->value(), need32);
    QCOMPARE(length->minimum(), need32);
    QVERIFY2(length->toolTip().contains(QString::number(need32)), qPrintable(length->toolTip()));
    QCOMPARE(panel.experiment().base.task.trainLength, static_cast<long long>(need32));
    panel.findChild<QSpinBox*>("option_pairs")->setValue(4);
    QCOMPARE(length->minimum(), 3 * 4 + 3);
    QCOMPARE(length->value(), need32);  // a length that fits stays
    length->setValue(20);
    QCOMPARE(length->value(), 20);
    length->setValue(10);  // below 15: the box holds its floor
    QCOMPARE(length->value(), 15);
    // indirect-indexing's default max_offset 8: the source and 2 * 8 + 3 more tokens.
    panel.findChild<QComboBox*>("task")->setCurrentText("indirect-indexing");
    QCOMPARE(length->minimum(), 2 * 8 + 4);
    QCOMPARE(length->value(), 2 * 8 + 4);
    panel.findChild<QComboBox*>("task")->setCurrentText("kernel-lm");  // any length from 2
    QCOMPARE(length->minimum(), std::max(formMinimum, 2));
    QCOMPARE(length->value(), 2 * 8 + 4);

    poslab::ExperimentSpec e = tinyIndirect({"rope"});
    e.base.task.id = "kv-retrieval";
    e.base.task.options = {{"pairs", 2}, {"keys", 8}, {"values", 8}};
    e.base.task.trainLength = 12;  // 3 * 2 + 3 = 9 <= 12
    e.base.run.evalLengths = {12, 24};
    test::loadExperiment(panel, e);
    QCOMPARE(length->value(), 12);
    QCOMPARE(length->minimum(), 9);
    QCOMPARE(panel.experiment().base.task.trainLength, 12LL);
  }

  // A start the family's learned form cannot hold is named under the family's start rows and
  // refused at Play, not moved when the model is built: jordan-stabilized learns
  // eta = eta_max tanh(raw) with eta_max = 0.1 (MATH 2.3), so eta 0.5 has no raw value. Pinned,
  // eta is not learned and 0.5 is its value; 0.1, at the cap, starts at 0.099.
  void aStartPastTheLearnedCapIsNamedAndRefused() {
    TrainingPanel panel;
    test::loadExperiment(panel, tinyIndirect({"jordan-stabilized"}));
    FamilyStartForm* start = panel.setupForm()->familyStart();
    auto* problem = start->findChild<QLabel*>("startProblem_jordan-stabilized");
    QVERIFY(problem);
    QVERIFY(start->problem("jordan-stabilized").isEmpty());
    QVERIFY(problem->isHidden());
    QDoubleSpinBox* eta = start->valueBox("jordan-stabilized", "eta");
    QVERIFY(eta && eta->maximum() >= 0.5);
    eta->setValue(0.5);
    QVERIFY2(start->problem("jordan-stabilized").contains("eta = 0.5 is past the cap"),
             qPrintable(start->problem("jordan-stabilized")));
    QVERIFY(!problem->isHidden());
    if (const QString dir = qEnvironmentVariable("POSLAB_TRAINING_SHOTS"); !dir.isEmpty()) {
      panel.resize(1200, 900);
      panel.show();
      QCoreApplication::processEvents();
      QVERIFY(panel.grab().save(QDir(dir).filePath("start_past_cap.png")));
    }
    test::clickButton(&panel, "playButton");
    QCOMPARE(panel.runCount(), 0);
    QVERIFY2(panel.statusText().contains("jordan-stabilized's start: eta = 0.5 is past the cap"),
             qPrintable(panel.statusText()));
    start->pinBox("eta")->setChecked(true);
    QVERIFY(start->problem("jordan-stabilized").isEmpty());
    QVERIFY(problem->isHidden());
    start->pinBox("eta")->setChecked(false);
    QVERIFY(!start->problem("jordan-stabilized").isEmpty());
    eta->setValue(0.1);
    QVERIFY(start->problem("jordan-stabilized").isEmpty());
    QCOMPARE(panel.experiment().familyParams.at("jordan-stabilized").at("eta"), 0.1);
  }
};

QTEST_MAIN(TestTrainingForm)
#include "test_training_form.moc"
