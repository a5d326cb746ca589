#include "error_report.h"

#include <QMainWindow>
#include <QMessageBox>
#include <QStatusBar>

namespace poslab::ui {

namespace {
QMainWindow* mainWindowOf(QWidget* anchor) {
  return anchor ? qobject_cast<QMainWindow*>(anchor->window()) : nullptr;
}
}  // namespace

UiError uiErrorFrom(const QString& where, const std::exception& e) {
  return {where, QString::fromUtf8(e.what())};
}

void showError(QWidget* anchor, const UiError& error, const QString& boxName) {
  showStatus(anchor, error.message.section('\n', 0, 0));
  auto* box = new QMessageBox(QMessageBox::Warning, error.where, error.message, QMessageBox::Ok,
                              anchor ? anchor->window() : nullptr);
  box->setObjectName(boxName);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

void showStatus(QWidget* anchor, const QString& text, int ms) {
  if (QMainWindow* w = mainWindowOf(anchor)) w->statusBar()->showMessage(text, ms);
}

}  // namespace poslab::ui
