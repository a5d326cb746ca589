// "What am I looking at?": a short note per window view, in the project's own words
// (resources/help/<view>.md, compiled into the program), shown by Help > What am I looking at?
// (Shift+F1) for the current tab.
#pragma once

#include <QString>

#include "window_view.h"

class QWidget;

namespace poslab::ui {

// The note for `view` as Markdown; never empty for a view the window has.
QString viewHelpMarkdown(WindowView view);

// Opens (or raises) a non-modal window with the note for `view`, parented to `parent`.
void showViewHelp(QWidget* parent, WindowView view);

// The same for a note that belongs to no tab: "lessons" (the Lessons panel and presentation
// mode). helpNoteMarkdown is empty for a name that has no note.
QString helpNoteMarkdown(const QString& name);
void showHelpNote(QWidget* parent, const QString& name);

}  // namespace poslab::ui
