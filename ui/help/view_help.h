// "What am I looking at?": a short note per window view, in the project's own words
// (resources/help/<view>.md, compiled into the program), shown by Help > What am I looking at?
// (Shift+F1) for the current tab.
#pragma once

#include <QPointer>
#include <QString>

#include "window_view.h"

class QDialog;
class QTextBrowser;
class QWidget;

namespace poslab::ui {

// The note for `view` as Markdown; never empty for a view the window has.
QString viewHelpMarkdown(WindowView view);

// The same for a note that belongs to no tab: "lessons" (the Lessons panel and presentation
// mode); empty for a name that has no note.
QString helpNoteMarkdown(const QString& name);

// The one non-modal "What am I looking at?" window of a main window (AppShell holds it): built on
// first use, kept when closed (closing hides it), reused for every note; asking again replaces its
// text and raises it.
class HelpWindow {
 public:
  explicit HelpWindow(QWidget* parent);  // the dialog's Qt parent, which deletes it

  void showView(WindowView view);
  void showNote(const QString& name);
  // Null before the first show (and after the dialog was deleted: the next show builds another).
  QDialog* dialog() const;
  QTextBrowser* text() const;

 private:
  QWidget* parent_;
  QPointer<QDialog> dialog_;
  QPointer<QTextBrowser> text_;  // a child of dialog_
};

}  // namespace poslab::ui
