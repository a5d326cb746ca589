#include "lessons/lesson_panel.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>

#include <exception>

#include "error_report.h"
#include "lessons/lesson.h"
#include "lessons/lesson_player.h"
#include "math/prose_markup.h"

namespace poslab::ui {

namespace {
constexpr int kPanelWidth = 340;  // logical pixels: a column of text beside the plots

QString q(const std::string& s) {
  return QString::fromStdString(s);
}
}  // namespace

LessonPanel::LessonPanel(LessonPlayer* player, QWidget* parent) : QWidget(parent), player_(player) {
  setObjectName("lessonPanel");
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  chooser_ = new QComboBox(this);
  chooser_->setObjectName("lessonChooser");
  chooser_->addItem(tr("Choose a lesson…"));
  for (const std::string& file : poslab::lessonFiles()) {
    QString title;
    try {
      title = q(poslab::readLessonFile(file).title);
    } catch (const std::exception& e) {
      title = tr("%1 (cannot be read)").arg(QFileInfo(q(file)).fileName());
      chooser_->setItemData(chooser_->count(), QString::fromUtf8(e.what()), Qt::ToolTipRole);
    }
    chooser_->addItem(QStringLiteral("%1. %2").arg(files_.size() + 1).arg(title));
    files_ << q(file);
  }
  help_ = new QToolButton(this);
  help_->setText(QStringLiteral("?"));
  help_->setToolTip(tr("What are lessons and presentation mode?"));
  top->addWidget(chooser_, 1);
  top->addWidget(help_);
  layout->addLayout(top);

  title_ = new QLabel(this);
  title_->setObjectName("lessonTitle");
  title_->setWordWrap(true);
  QFont big = title_->font();
  big.setBold(true);
  big.setPointSizeF(big.pointSizeF() * 1.2);
  title_->setFont(big);
  progress_ = new QLabel(this);
  progress_->setObjectName("lessonProgress");
  progress_->setWordWrap(true);
  text_ = new QTextBrowser(this);
  text_->setObjectName("lessonText");
  text_->setOpenLinks(false);
  action_ = new QLabel(this);
  action_->setObjectName("lessonAction");
  action_->setWordWrap(true);
  action_->setTextFormat(Qt::RichText);
  action_->setStyleSheet(
      "QLabel { background: #fff4c2; border: 1px solid #d9b300; border-radius: 4px;"
      " padding: 6px; color: #000000; }");
  auto* buttons = new QHBoxLayout;
  back_ = new QPushButton(tr("◀ Back"), this);
  back_->setObjectName("lessonBack");
  back_->setToolTip(tr("The previous step (PageUp)"));
  next_ = new QPushButton(tr("Next ▶"), this);
  next_->setObjectName("lessonNext");
  next_->setToolTip(tr("The next step (PageDown)"));
  buttons->addWidget(back_);
  buttons->addStretch(1);
  buttons->addWidget(next_);
  layout->addWidget(title_);
  layout->addWidget(progress_);
  layout->addWidget(text_, 1);
  layout->addWidget(action_);
  layout->addLayout(buttons);
  setMinimumWidth(kPanelWidth);

  connect(chooser_, &QComboBox::activated, this, &LessonPanel::openChosen);
  connect(help_, &QToolButton::clicked, this, &LessonPanel::helpRequested);
  connect(back_, &QPushButton::clicked, player_, &LessonPlayer::back);
  connect(next_, &QPushButton::clicked, player_, &LessonPlayer::next);
  connect(player_, &LessonPlayer::stepShown, this, &LessonPanel::refresh);
  connect(player_, &LessonPlayer::closed, this, &LessonPanel::refresh);
  refresh();
}

void LessonPanel::openChosen(int index) {
  if (index < 1 || index > files_.size()) return;
  // Its modules, if its steps name any, load through the window's gate first; a problem goes to
  // an error box. The chooser shows the lesson that is open, whatever was picked.
  QPointer<LessonPanel> self(this);
  player_->openFileInBackground(files_[index - 1], 0, [self](bool, const QString&) {
    if (self) self->refresh();
  });
  refresh();
}

void LessonPanel::refresh() {
  const poslab::Lesson* lesson = player_->lesson();
  {
    const QSignalBlocker block(chooser_);
    const int shipped = files_.indexOf(player_->file());
    chooser_->setCurrentIndex(shipped >= 0 ? shipped + 1 : 0);
  }
  if (!lesson) {
    title_->setText(tr("Lessons"));
    progress_->setText(tr("Pick a lesson above, or open your own with File > Open Lesson…"));
    text_->setHtml(proseToHtml(
        tr("Each lesson is a few short steps through the three papers behind PosLab: RoPE and "
           "its kernel, decay and ALiBi, the Jordan shear, float32 range, PJ-RoPE's sectors, "
           "PoPE, train short test long, and what a trained model learned.\n\nEvery step sets up "
           "the window for you and suggests one thing to try.")));
    action_->setVisible(false);
    back_->setEnabled(false);
    next_->setEnabled(false);
    return;
  }
  const int i = player_->stepIndex();
  const poslab::LessonStep& step = lesson->steps[static_cast<size_t>(i)];
  title_->setText(q(lesson->title));
  progress_->setText(
      tr("Step %1 of %2 — %3").arg(i + 1).arg(player_->stepCount()).arg(q(step.title)));
  text_->setHtml(proseToHtml(q(step.text)));
  QString action = proseToHtml(q(step.action));
  action.remove(QStringLiteral("<p>")).replace(QStringLiteral("</p>"), QStringLiteral(" "));
  action_->setText(tr("<b>Try:</b> %1").arg(action));
  action_->setVisible(true);
  back_->setEnabled(i > 0);
  next_->setEnabled(i + 1 < player_->stepCount());
}

}  // namespace poslab::ui
