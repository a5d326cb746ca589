// The "loading this file runs its code" notice of the TorchScript-family tests: find it and
// answer it as a user would.
#pragma once

#include <QAbstractButton>
#include <QMessageBox>
#include <QTest>
#include <QWidget>

namespace poslab::ui::test {

// The window's visible notice (object name encodingCodeNotice), or null while none shows.
inline QMessageBox* visibleCodeNotice(const QWidget& window) {
  for (QMessageBox* box : window.findChildren<QMessageBox*>("encodingCodeNotice"))
    if (box->isVisible()) return box;
  return nullptr;
}

// Clicks the notice's button that goes on ("Load") when `agree`, else its Cancel; a notice
// without that button fails the calling test.
inline void answerCodeNotice(QMessageBox* notice, bool agree) {
  for (QAbstractButton* b : notice->buttons())
    if ((notice->buttonRole(b) == QMessageBox::AcceptRole) == agree) return b->click();
  QFAIL("the notice has no such button");
}

}  // namespace poslab::ui::test
