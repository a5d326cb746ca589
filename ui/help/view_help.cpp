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

HelpWindow::HelpWindow(QWidget* parent) : parent_(parent) {}

QDialog* HelpWindow::dialog() const {
  return dialog_;
}

QTextBrowser* HelpWindow::text() const {
  return text_;
}

void HelpWindow::showView(WindowView view) {
  showNote(resourceName(view));
}

void HelpWindow::showNote(const QString& name) {
  if (!dialog_) {
    dialog_ = new QDialog(parent_);
    dialog_->setObjectName(QStringLiteral("viewHelp"));  // test hooks only
    dialog_->resize(kHelpWidth, kHelpHeight);
    auto* layout = new QVBoxLayout(dialog_);
    text_ = new QTextBrowser(dialog_);
    text_->setObjectName(QStringLiteral("viewHelpText"));
    layout->addWidget(text_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog_);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog_, &QDialog::hide);
    layout->addWidget(buttons);
    dialog_->setWindowTitle(QObject::tr("What am I looking at?"));
  }
  text_->setMarkdown(helpNoteMarkdown(name));
  dialog_->show();
  dialog_->raise();
}

}  // namespace poslab::ui
