// The trained model's answers on a few sample inputs of the run's sample stream (row 1 is the
// Attention tab's input at the train length). For indirect indexing each row reads the sequence
// back: the source character and its position, the offset, the truth c_(p+o) and the model's
// prediction, correct rows marked green. Other tasks show the input's tail, the target and the
// prediction.
#pragma once

#include <QStringList>
#include <QWidget>

#include "bridge/inspect_samples.h"  // TrainingSamples: plain data

class QComboBox;
class QLabel;
class QTableWidget;

namespace poslab::ui {

class SampleView : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kExamples = 8;  // rows per refresh

  // Column indices of the indirect-indexing table.
  enum Column {
    kSequence,
    kSource,
    kPosition,
    kOffset,
    kTruth,
    kPrediction,
    kConfidence,
    kCorrect
  };

  explicit SampleView(QWidget* parent = nullptr);

  void setRuns(const QStringList& families, const QStringList& toolTips = {});  // clears the table
  int run() const;
  void showSamples(const TrainingSamples& samples);
  const TrainingSamples& shown() const { return last_; }
  QTableWidget* table() const { return table_; }
  QString summaryText() const;

  // How a token id of indirect indexing is written: A-Z, a-z, 0-9, then Latin and Greek letters;
  // ids beyond those as #id.
  static QString symbol(long long id);

 Q_SIGNALS:
  void requestChanged();  // the run changed

 private:
  QComboBox* run_ = nullptr;
  QLabel* summary_ = nullptr;
  QTableWidget* table_ = nullptr;
  TrainingSamples last_;
};

}  // namespace poslab::ui
