// The chosen task's own settings in the training panel: its options (from core's
// taskOptionSpecs: integers as spin boxes, 0/1 switches as check boxes, reals as text fields where
// empty means the task's default), the kernel-lm kernel or sector-teacher teacher, and the byte-lm
// text file. Writes into a TaskConfig; core validates when a run is built.
#pragma once

#include <QWidget>

#include <vector>

#include "tasks/task_config.h"        // plain data, no torch
#include "tasks/task_options.h"       // plain data, no torch
#include "training/training_setup.h"  // TaskOptionValues

class QCheckBox;
class QComboBox;
class QVBoxLayout;
class QLineEdit;
class QSpinBox;

namespace poslab::ui {

class TaskOptionsForm : public QWidget {
  Q_OBJECT
 public:
  explicit TaskOptionsForm(QWidget* parent = nullptr);

  // Shows config.id's settings with config's values; options it does not set show the default.
  void setConfig(const poslab::TaskConfig& config);
  // Train length and head dim set the derived defaults shown (placeholders); values stay.
  void setContext(long long trainLength, long long headDim);
  // Writes kernel, text file and the options that differ from their defaults into config (whose
  // id must be this form's task). False, with *error naming the option, for text that is not a
  // number; core checks ranges and combinations when the run is built.
  bool write(poslab::TaskConfig& config, QString* error) const;
  // What the form holds, as plain values (write's result, and its error).
  TaskOptionValues values() const;
  const std::string& taskId() const { return config_.id; }

 Q_SIGNALS:
  void changed();

 private:
  struct Field {
    poslab::TaskOptionSpec spec;
    QSpinBox* spin = nullptr;    // integer options
    QCheckBox* check = nullptr;  // 0/1 options
    QLineEdit* edit = nullptr;   // real options; empty = default
  };
  void rebuild();
  void showDefaults();

  poslab::TaskConfig config_;  // the task shown and its context (train length, head dim)
  QVBoxLayout* layout_ = nullptr;
  QWidget* body_ = nullptr;        // this task's rows; rebuilt when the task changes
  QComboBox* kernel_ = nullptr;    // kernel-lm kernel / sector-teacher teacher, else null
  QLineEdit* textFile_ = nullptr;  // byte-lm only, else null
  std::vector<Field> fields_;
};

}  // namespace poslab::ui
