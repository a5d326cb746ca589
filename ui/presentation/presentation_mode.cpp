#include "presentation/presentation_mode.h"

#include <QDockWidget>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QSplitter>
#include <QStatusBar>

#include "lessons/lesson.h"
#include "lessons/lesson_player.h"
#include "math/prose_markup.h"

namespace poslab::ui {

namespace {

// High contrast for a projector: black text on white, strong focus and selection colours; the
// caption is white on a dark bar.
const char* const kPresentationStyle =
    "QWidget { color: #000000; }"
    "QMainWindow, QTabWidget::pane, QScrollArea, QTabBar::tab:selected { background: #ffffff; }"
    "QTabBar::tab { padding: 6px 14px; }"
    "QTabBar::tab:selected { font-weight: bold; border-bottom: 4px solid #0b3d91; }"
    "QLabel#presentationCaption { background: #0b1f3a; color: #ffffff; padding: 12px 18px; }";

// Every action of the menu bar's menus and their submenus.
void collectActions(const QList<QAction*>& actions, QList<QAction*>& out) {
  for (QAction* a : actions) {
    if (a->menu())
      collectActions(a->menu()->actions(), out);
    else if (!a->isSeparator())
      out << a;
  }
}

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

}  // namespace

PresentationMode::PresentationMode(QMainWindow* window, std::vector<QWidget*> foldable,
                                   LessonPlayer* lessons, QLabel* caption)
    : QObject(window),
      window_(window),
      foldable_(std::move(foldable)),
      lessons_(lessons),
      caption_(caption) {
  setObjectName("presentationMode");
  connect(lessons_, &LessonPlayer::stepShown, this, &PresentationMode::updateCaption);
  connect(lessons_, &LessonPlayer::closed, this, &PresentationMode::updateCaption);
}

void PresentationMode::enter() {
  if (active_) return;
  saved_.windowState = window_->windowState();
  saved_.geometry = window_->saveGeometry();
  saved_.size = window_->size();
  saved_.splitters.clear();
  for (QSplitter* split : window_->findChildren<QSplitter*>())
    saved_.splitters.push_back({split, split->sizes()});
  saved_.docks = window_->saveState();
  // isHidden, not isVisible: a widget on a tab not shown (or in a window not shown yet) is not
  // visible, but it is not hidden either, and must not come back hidden.
  saved_.menuBar = !window_->menuBar()->isHidden();
  saved_.statusBar = !window_->statusBar()->isHidden();
  saved_.foldable.clear();
  for (QWidget* area : foldable_) saved_.foldable.push_back(!area->isHidden());
  saved_.font = window_->font();
  saved_.styleSheet = window_->styleSheet();
  active_ = true;

  // With the menu bar hidden its actions' shortcuts would stop: the window holds them meanwhile.
  QList<QAction*> menuActions;
  collectActions(window_->menuBar()->actions(), menuActions);
  saved_.borrowedActions.clear();
  for (QAction* a : menuActions)
    if (!window_->actions().contains(a)) {
      window_->addAction(a);
      saved_.borrowedActions << a;
    }
  window_->menuBar()->setVisible(false);
  window_->statusBar()->setVisible(false);
  for (QWidget* area : foldable_) area->setVisible(false);
  for (QDockWidget* dock : window_->findChildren<QDockWidget*>()) dock->setVisible(false);
  QFont big = saved_.font;
  big.setPointSizeF(big.pointSizeF() * kPresentationScale);
  window_->setFont(big);
  window_->setStyleSheet(kPresentationStyle);
  plots_.apply(window_, kPresentationScale);
  updateCaption();
  if (useFullScreen_) window_->showFullScreen();
  Q_EMIT activeChanged(true);
}

void PresentationMode::leave() {
  if (!active_) return;
  active_ = false;
  plots_.restore();
  window_->setStyleSheet(saved_.styleSheet);
  window_->setFont(saved_.font);
  caption_->setVisible(false);
  for (QAction* a : saved_.borrowedActions) window_->removeAction(a);
  saved_.borrowedActions.clear();
  window_->menuBar()->setVisible(saved_.menuBar);
  window_->statusBar()->setVisible(saved_.statusBar);
  for (size_t i = 0; i < foldable_.size(); ++i) foldable_[i]->setVisible(saved_.foldable[i]);
  window_->restoreState(saved_.docks);
  // A splitter shares its space out anew when a pane comes back: give each its sizes again.
  for (const auto& [split, sizes] : saved_.splitters)
    if (split) split->setSizes(sizes);
  if (useFullScreen_) {
    window_->setWindowState(saved_.windowState);
    window_->restoreGeometry(saved_.geometry);
  } else {
    window_->resize(saved_.size);  // larger text may have made the window grow
  }
  Q_EMIT activeChanged(false);
}

void PresentationMode::toggle() {
  if (active_)
    leave();
  else
    enter();
}

void PresentationMode::updateCaption() {
  const poslab::Lesson* lesson = lessons_->lesson();
  if (!active_ || !lesson) {
    caption_->setVisible(false);
    return;
  }
  const int i = lessons_->stepIndex();
  const poslab::LessonStep& step = lesson->steps[static_cast<size_t>(i)];
  QString action = proseToHtml(q(step.action));
  action.remove(QStringLiteral("<p>")).replace(QStringLiteral("</p>"), QStringLiteral(" "));
  caption_->setText(
      QStringLiteral("<div style='font-size:small; color:#b8c7e0'>%1 · step %2 of %3</div>"
                     "<div style='font-weight:bold'>%4</div>%5"
                     "<div style='color:#ffd75e'>%6 %7</div>")
          .arg(q(lesson->title).toHtmlEscaped())
          .arg(i + 1)
          .arg(lessons_->stepCount())
          .arg(q(step.title).toHtmlEscaped(), proseToHtml(q(step.text)), tr("Try:"), action));
  caption_->setVisible(true);
}

QString PresentationMode::captionText() const {
  const poslab::Lesson* lesson = lessons_->lesson();
  if (!active_ || !lesson) return {};
  const poslab::LessonStep& step = lesson->steps[static_cast<size_t>(lessons_->stepIndex())];
  return q(step.title) + "\n" + proseToPlainText(q(step.text)) + "\n" +
         proseToPlainText(q(step.action));
}

}  // namespace poslab::ui
