// View > Presentation (F11): the window made for a projector. Full screen; the window's text
// and the plots' fonts and lines larger (kPresentationScale); high contrast (black on white,
// a dark caption bar); the setup forms folded away (the explorer's parameter and formula column,
// the training tab's setup form; the training buttons stay); the lesson dock hidden and the
// current lesson step shown as a caption under the views. PageDown / PageUp still step the
// lesson (menus/lesson_menus.h). leave() (F11, Esc) restores exactly what enter() found: window
// state and geometry, docks, the menu and status bars, fonts, style sheet, every plot's look.
#pragma once

#include <QAction>
#include <QByteArray>
#include <QFont>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QRect>
#include <QSize>
#include <QString>

#include <utility>
#include <vector>

#include "presentation/plot_scaling.h"

class QLabel;
class QMainWindow;
class QSplitter;
class QWidget;

namespace poslab::ui {

class LessonPlayer;

inline constexpr double kPresentationScale = 1.6;  // text and line widths on a projector

class PresentationMode : public QObject {
  Q_OBJECT
 public:
  // `foldable`: the setup areas folded away while active (the explorer's parameter column, the
  // training tab's setup form); `caption`: the label under the views that shows the lesson step.
  PresentationMode(QMainWindow* window, std::vector<QWidget*> foldable, LessonPlayer* lessons,
                   QLabel* caption);

  bool isActive() const { return active_; }
  // Screenshots and tests keep the window's own size instead of the screen's (offscreen
  // platforms have a small virtual screen).
  void setUseFullScreen(bool on) { useFullScreen_ = on; }
  // The caption's text as plain text (tests): the step's title, text and action.
  QString captionText() const;

 public Q_SLOTS:
  void enter();
  void leave();
  void toggle();

 Q_SIGNALS:
  void activeChanged(bool active);

 private:
  void updateCaption();

  struct Saved {
    Qt::WindowStates windowState;
    QByteArray geometry;  // QWidget::saveGeometry
    QSize size;
    QByteArray docks;  // QMainWindow::saveState
    bool menuBar = true, statusBar = true;
    std::vector<bool> foldable;  // each foldable area was shown
    QFont font;
    QString styleSheet;
    std::vector<std::pair<QPointer<QSplitter>, QList<int>>> splitters;  // every splitter's sizes
    QList<QAction*> borrowedActions;  // menu actions added to the window while the bar is hidden
  };

  QMainWindow* window_;
  std::vector<QWidget*> foldable_;
  LessonPlayer* lessons_;
  QLabel* caption_;
  PlotScaling plots_;
  Saved saved_;
  bool active_ = false;
  bool useFullScreen_ = true;
};

}  // namespace poslab::ui
