// The Lessons panel (Help > Lessons, a dock beside the views): the list of shipped lessons
// (resources/lessons), the open lesson's title, "step 2 of 5", the step's text with its formulas
// typeset (math/prose_markup.h), the one suggested action, and Back / Next. It shows what the
// LessonPlayer holds and asks it to move; it has no state of its own.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QTextBrowser;
class QToolButton;

namespace poslab::ui {

class LessonPlayer;

class LessonPanel : public QWidget {
  Q_OBJECT
 public:
  LessonPanel(LessonPlayer* player, QWidget* parent = nullptr);

  // The shipped lesson files in the chooser, in its order.
  QStringList lessonFiles() const { return files_; }
  QComboBox* chooser() const { return chooser_; }
  QLabel* progressLabel() const { return progress_; }
  QTextBrowser* textView() const { return text_; }
  QPushButton* nextButton() const { return next_; }
  QPushButton* backButton() const { return back_; }
  QToolButton* helpButton() const { return help_; }

 Q_SIGNALS:
  // The panel's "?" button: the shell shows the "lessons" note (help/view_help.h).
  void helpRequested();

 private:
  void refresh();
  void openChosen(int index);

  LessonPlayer* player_;
  QStringList files_;  // chooser item i + 1 (item 0 is the prompt)
  QComboBox* chooser_ = nullptr;
  QLabel* title_ = nullptr;
  QLabel* progress_ = nullptr;
  QTextBrowser* text_ = nullptr;
  QLabel* action_ = nullptr;
  QPushButton* back_ = nullptr;
  QPushButton* next_ = nullptr;
  QToolButton* help_ = nullptr;
};

}  // namespace poslab::ui
