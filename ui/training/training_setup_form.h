// The training tab's setup form: the task and its options, the families (1-4 checked) with the
// parameters and pins they start from (family_start_form.h), steps, lr, seed, lengths, batch,
// evaluation and the model size. It gets and sets its values as one plain
// struct (TrainingFormSettings, training_setup.h); its boxes take their ranges from the same table
// that checks a loaded setup against them (formRange). The widgets' object names are test hooks.
#pragma once

#include <QWidget>

#include <string>
#include <vector>

#include "tasks/task_config.h"  // plain data, no torch
#include "training/training_setup.h"

class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QListWidget;
class QListWidgetItem;
class QSpinBox;

namespace poslab::ui {

class FamilyStartForm;
struct FamilyDescription;
class TaskOptionsForm;

class TrainingSetupForm : public QWidget {
  Q_OBJECT
 public:
  explicit TrainingSetupForm(QWidget* parent = nullptr);

  TrainingFormSettings settings() const;
  // Shows `settings` (its task options for its task; families not in the list are skipped).
  void setSettings(const TrainingFormSettings& settings);
  // The task options shown when the task box picks `task.id` (a loaded setup's); other tasks
  // show their defaults. Changes nothing shown now.
  void setSetupTask(const poslab::TaskConfig& task) { setupTask_ = task; }
  // Checks exactly these families (ids), unchecking the rest; false for an unknown id.
  bool selectFamilies(const std::vector<std::string>& ids);
  TaskOptionsForm* taskOptions() const { return taskOptions_; }
  // Each checked family's parameters and the pins the runs start from.
  FamilyStartForm* familyStart() const { return start_; }
  // The lengths the attention view offers: the train length, then the eval lengths (if valid).
  std::vector<long long> sampleLengths() const;

 Q_SIGNALS:
  void sampleLengthsChanged();  // the train length or the eval lengths changed

 private:
  // One entry of the families list: a built-in family, or one loaded from a file this session
  // (bridge/loaded_families.h), added when it arrives.
  void addFamilyItem(const FamilyDescription& family, bool checked);
  static std::string itemFamily(const QListWidgetItem* item);
  QListWidgetItem* familyItem(const std::string& id) const;  // null: not listed
  void onTaskChanged();  // shows the task's options (the setup's when it is its task)
  // Keeps the train length within what the shown task and options can generate: the box's
  // minimum is the task's (core taskMinLength; kv-retrieval with 32 pairs: 99), so a length below
  // it rises to it and the tooltip says why. Skipped while setSettings shows a loaded setup.
  void followTaskMinimumLength();
  long long modelHeadDim() const;  // d_model / heads of the model boxes
  poslab::TaskConfig shownTask(const std::string& id) const;

  poslab::TaskConfig setupTask_;
  bool showingSettings_ = false;  // setSettings is filling the boxes
  int formMinLength_ = 1;         // the train length's own minimum (formRange)
  QComboBox* task_ = nullptr;
  TaskOptionsForm* taskOptions_ = nullptr;
  QListWidget* families_ = nullptr;
  FamilyStartForm* start_ = nullptr;
  QSpinBox* steps_ = nullptr;
  QDoubleSpinBox* lr_ = nullptr;
  QSpinBox* seed_ = nullptr;
  QSpinBox* trainLength_ = nullptr;
  QSpinBox* batch_ = nullptr;
  QLineEdit* evalLengths_ = nullptr;
  QSpinBox* evalEvery_ = nullptr;
  QSpinBox* evalSequences_ = nullptr;
  QSpinBox* dModel_ = nullptr;
  QSpinBox* heads_ = nullptr;
  QSpinBox* layers_ = nullptr;
  QDoubleSpinBox* positionLrScale_ = nullptr;
  QComboBox* device_ = nullptr;
  QComboBox* architecture_ = nullptr;
};

}  // namespace poslab::ui
