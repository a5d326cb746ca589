#include "training/sample_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace poslab::ui {

namespace {
const QColor kCorrectColour(214, 240, 214);  // pale green: the model's answer is the truth
const QColor kWrongColour(250, 222, 222);    // pale red
constexpr int kTailTokens = 24;              // other tasks: the input's last tokens shown

QTableWidgetItem* item(const QString& text, const QString& tip = {}) {
  auto* it = new QTableWidgetItem(text);
  it->setFlags(it->flags() & ~Qt::ItemIsEditable);
  if (!tip.isEmpty()) it->setToolTip(tip);
  return it;
}
}  // namespace

QString SampleView::symbol(long long id) {
  static const QString letters = QStringLiteral(
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
      "ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝÞßàáâãäåæçèéêëìíîïðñòóôõöøùúûüýþÿ"
      "ΓΔΘΛΞΠΣΦΨΩαβγδεζηθικλμνξπρστφχψω");
  if (id >= 0 && id < letters.size()) return letters.mid(static_cast<int>(id), 1);
  return QStringLiteral("#%1").arg(id);
}

SampleView::SampleView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  run_ = new QComboBox(this);
  run_->setObjectName("samplesRun");
  summary_ = new QLabel(tr("press Play, Step or Pause: the model's answers appear here"), this);
  summary_->setObjectName("samplesSummary");
  summary_->setWordWrap(true);
  row->addWidget(new QLabel(tr("run"), this));
  row->addWidget(run_);
  row->addWidget(summary_, 1);
  layout->addLayout(row);
  table_ = new QTableWidget(this);
  table_->setObjectName("sampleTable");
  table_->verticalHeader()->setVisible(true);
  // No selection: its highlight would hide the correct / wrong colours of the rows.
  table_->setSelectionMode(QAbstractItemView::NoSelection);
  table_->setFocusPolicy(Qt::NoFocus);
  layout->addWidget(table_, 1);
  connect(run_, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT requestChanged(); });
}

void SampleView::setRuns(const QStringList& families, const QStringList& toolTips) {
  {
    const QSignalBlocker block(run_);
    const int keep = run_->currentIndex();
    run_->clear();
    run_->addItems(families);
    for (int i = 0; i < families.size() && i < toolTips.size(); ++i)
      run_->setItemData(i, toolTips[i], Qt::ToolTipRole);  // a loaded family's path and hash
    if (keep >= 0 && keep < families.size()) run_->setCurrentIndex(keep);
  }
  last_ = TrainingSamples{};
  table_->clear();
  table_->setRowCount(0);
  table_->setColumnCount(0);
  summary_->setText(tr("press Play, Step or Pause: the model's answers appear here"));
}

int SampleView::run() const {
  return run_->currentIndex();
}

QString SampleView::summaryText() const {
  return summary_->text();
}

void SampleView::showSamples(const TrainingSamples& s) {
  if (!s.error.empty()) {
    summary_->setText(tr("no samples: %1").arg(QString::fromStdString(s.error)));
    return;
  }
  last_ = s;
  table_->clear();
  const int rows = static_cast<int>(s.examples.size());
  table_->setRowCount(rows);
  int correct = 0, scored = 0;
  if (!s.indirect.empty()) {
    table_->setColumnCount(8);
    table_->setHorizontalHeaderLabels({tr("sequence"), tr("source"), tr("at"), tr("offset"),
                                       tr("truth"), tr("prediction"), tr("p(pred)"), tr("")});
    for (int r = 0; r < rows && r < static_cast<int>(s.indirect.size()); ++r) {
      const auto& e = s.indirect[static_cast<size_t>(r)];
      const auto& p = s.examples[static_cast<size_t>(r)];
      QString seq;
      for (size_t k = 0; k < e.characters.size(); ++k) {
        const bool src = static_cast<long long>(k) == e.sourcePosition;
        const bool dst = static_cast<long long>(k) == e.sourcePosition + e.offset;
        // [source] and <truth> stand out in the plain-text cell.
        const QString c = symbol(e.characters[k]);
        seq += src ? "[" + c + "]" : dst ? "<" + c + ">" : c;
      }
      QString ids;
      for (long long t : p.tokens) ids += QString::number(t) + ' ';
      table_->setItem(r, kSequence,
                      item(seq, tr("[source], <truth>; token ids: %1").arg(ids.trimmed())));
      table_->setItem(r, kSource, item(symbol(e.source), tr("token %1").arg(e.source)));
      table_->setItem(r, kPosition, item(QString::number(e.sourcePosition)));
      table_->setItem(r, kOffset, item(QString("%1%2").arg(e.offset > 0 ? "+" : "").arg(e.offset)));
      table_->setItem(r, kTruth, item(symbol(e.truth), tr("token %1").arg(e.truth)));
      table_->setItem(r, kPrediction, item(symbol(e.prediction), tr("token %1").arg(e.prediction)));
      table_->setItem(r, kConfidence, item(QString::number(p.confidence, 'f', 2)));
      table_->setItem(r, kCorrect, item(e.correct() ? QStringLiteral("✓") : QStringLiteral("✗")));
      for (int c = 0; c < 8; ++c)
        table_->item(r, c)->setBackground(e.correct() ? kCorrectColour : kWrongColour);
      correct += e.correct();
      ++scored;
    }
  } else {
    table_->setColumnCount(5);
    table_->setHorizontalHeaderLabels({tr("input (last %1 tokens)").arg(kTailTokens), tr("at"),
                                       tr("target"), tr("prediction"), tr("p(pred)")});
    for (int r = 0; r < rows; ++r) {
      const auto& p = s.examples[static_cast<size_t>(r)];
      QString tail;
      const size_t from = p.tokens.size() > kTailTokens ? p.tokens.size() - kTailTokens : 0;
      for (size_t k = from; k < p.tokens.size(); ++k) tail += QString::number(p.tokens[k]) + ' ';
      table_->setItem(r, 0, item(tail.trimmed()));
      table_->setItem(r, 1, item(QString::number(p.position)));
      table_->setItem(r, 2, item(QString::number(p.target)));
      table_->setItem(r, 3, item(QString::number(p.prediction)));
      table_->setItem(r, 4, item(QString::number(p.confidence, 'f', 2)));
      if (p.position < 0) continue;
      for (int c = 0; c < 5; ++c)
        table_->item(r, c)->setBackground(p.correct() ? kCorrectColour : kWrongColour);
      correct += p.correct();
      ++scored;
    }
  }
  table_->resizeColumnsToContents();
  table_->horizontalHeader()->setStretchLastSection(true);
  summary_->setText(
      tr("%1: %2 of %3 correct at step %4 (row 1 is the Attention tab's input at the train length)")
          .arg(run_->currentText())
          .arg(correct)
          .arg(scored)
          .arg(s.step));
}

}  // namespace poslab::ui
