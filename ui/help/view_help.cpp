#include "help/view_help.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QTextBrowser>
#include <QVBoxLayout>

// The resource lives in a static library: register it explicitly (Q_INIT_RESOURCE must be called
// outside any namespace).
static void initViewHelpResources() {
  static const bool done = [] {
    Q_INIT_RESOURCE(view_help);
    return true;
  }();
  (void)done;
}

namespace poslab::ui {

namespace {
constexpr int kHelpWidth = 560, kHelpHeight = 420;  // logical pixels

QString resourceName(WindowView view) {
  switch (view) {
    case WindowView::Kernel:
      return QStringLiteral("kernel");
    case WindowView::Attention:
      return QStringLiteral("attention");
    case WindowView::Norms:
      return QStringLiteral("norms");
    case WindowView::Probe:
      return QStringLiteral("probe");
    case WindowView::Diagnostics:
      return QStringLiteral("diagnostics");
    case WindowView::Training:
      return QStringLiteral("training");
  }
  return {};
}
}  // namespace

QString viewHelpMarkdown(WindowView view) {
  return helpNoteMarkdown(resourceName(view));
}

QString helpNoteMarkdown(const QString& name) {
  initViewHelpResources();
  QFile file(QStringLiteral(":/help/%1.md").arg(name));
  if (!file.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(file.readAll());
}

void showViewHelp(QWidget* parent, WindowView view) {
  showHelpNote(parent, resourceName(view));
}

void showHelpNote(QWidget* parent, const QString& name) {
  // One window, reused: asking again for another tab replaces its text.
  auto* dialog = parent->findChild<QDialog*>(QStringLiteral("viewHelp"));
  QTextBrowser* text = nullptr;
  if (!dialog) {
    dialog = new QDialog(parent);
    dialog->setObjectName(QStringLiteral("viewHelp"));
    dialog->resize(kHelpWidth, kHelpHeight);
    auto* layout = new QVBoxLayout(dialog);
    text = new QTextBrowser(dialog);
    text->setObjectName(QStringLiteral("viewHelpText"));
    layout->addWidget(text);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::hide);
    layout->addWidget(buttons);
  } else {
    text = dialog->findChild<QTextBrowser*>(QStringLiteral("viewHelpText"));
  }
  text->setMarkdown(helpNoteMarkdown(name));
  dialog->setWindowTitle(QObject::tr("What am I looking at?"));
  dialog->show();
  dialog->raise();
}

}  // namespace poslab::ui
