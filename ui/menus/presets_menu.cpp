#include "menus/presets_menu.h"

#include <QAction>
#include <QFileInfo>
#include <QMenu>

#include <exception>

#include "io/input_file.h"
#include "io/json_fields.h"
#include "io/json_input.h"
#include "session/session_families.h"
#include "train/experiment_plan.h"
#include "train/preset.h"
#include "train/trainable_check.h"
#include "training/training_panel.h"

namespace poslab::ui {

bool loadPresetIntoTraining(TrainingPanel* panel, ViewSelector* views, const QString& nameOrPath,
                            QString* error, QString* note) {
  poslab::ExperimentSpec spec;
  try {
    const std::string file = poslab::presetFile(nameOrPath.toStdString());
    spec = poslab::readExperimentFile(file, "preset file");
    // Everything its runs need, before the tab changes: a preset that cannot train is refused
    // here, naming the field, not at Play.
    // A text file by its size only (on the UI thread): the run reads it on its own thread.
    poslab::checkTrainable(spec, poslab::JsonPath{poslab::presetSource(file), ""},
                           poslab::CorpusCheck::Size);
  } catch (const std::exception& e) {
    *error = QString::fromUtf8(e.what());
    return false;
  }
  // Its families loaded from TorchScript files join the family lists (core checked them above).
  if (const QString problem = loadFileFamilies(spec.families); !problem.isEmpty()) {
    *error = QObject::tr("preset '%1': %2").arg(nameOrPath, problem);
    return false;
  }
  QStringList parts;
  if (spec.seeds.size() > 1)
    parts << QObject::tr("seed %1 of %2 seeds").arg(spec.seeds.front()).arg(spec.seeds.size());
  if (!spec.variants.empty()) {
    // The training tab runs one task: the first planned run's, with the first variant applied by
    // the rule the CLI uses.
    spec.base.task = poslab::planExperiment(spec).front().config.task;
    QStringList applied;
    for (const auto& [key, value] : spec.variants.front())
      applied << QString::fromStdString(key + " " + value);
    parts << QObject::tr("task variant 1 of %1 (%2)")
                 .arg(spec.variants.size())
                 .arg(applied.join(", "));
  }
  if (!spec.seeds.empty()) spec.seeds = {spec.seeds.front()};
  if (!panel->setExperiment(spec, error)) {
    *error = QObject::tr("preset '%1': %2").arg(nameOrPath, *error);
    return false;
  }
  views->showView(WindowView::Training);
  *note = parts.isEmpty()
              ? QObject::tr("Preset '%1' loaded").arg(QString::fromStdString(spec.name))
              : QObject::tr(
                    "Preset '%1' loaded: this tab runs %2; `poslab-cli run --preset %1` runs "
                    "them all")
                    .arg(QString::fromStdString(spec.name), parts.join(" and "));
  return true;
}

std::vector<FamilyFileNeed> presetFamilyNeeds(const QString& nameOrPath) {
  try {
    const std::string file = poslab::presetFile(nameOrPath.toStdString());
    const std::string text = readInputFile(file, "preset file", kMaxJsonInputBytes);
    if (!jsonDepthProblem(text).empty()) return {};  // reading the preset names the problem
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    return familyFileNeeds(j, QFileInfo(QString::fromStdString(file)).absoluteDir());
  } catch (const std::exception&) {
    return {};
  }
}

void fillPresetsMenu(QMenu* menu, const std::function<void(const QString&)>& chosen) {
  for (const std::string& name : poslab::presetNames()) {
    const QString qname = QString::fromStdString(name);
    QString description;
    try {
      const poslab::ExperimentSpec spec = poslab::loadPreset(name);
      description = QString::fromStdString(spec.description);
      if (!spec.paperResult.empty())
        description += QObject::tr("\nPaper: %1").arg(QString::fromStdString(spec.paperResult));
    } catch (const std::exception& e) {
      description = QObject::tr("cannot be read: %1").arg(QString::fromUtf8(e.what()));
    }
    QAction* action = menu->addAction(qname);
    action->setObjectName("preset:" + qname);
    action->setToolTip(description);
    action->setStatusTip(description.section('\n', 0, 0));
    QObject::connect(action, &QAction::triggered, menu, [chosen, qname] { chosen(qname); });
  }
  if (menu->isEmpty()) {
    QAction* none = menu->addAction(
        QObject::tr("(no presets in %1)").arg(QString::fromStdString(poslab::presetDirectory())));
    none->setEnabled(false);
  }
}

}  // namespace poslab::ui
