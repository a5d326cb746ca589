#include "session/family_file_gate.h"

#include <QCoreApplication>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QThread>

#include "error_report.h"

namespace poslab::ui {

namespace {
// What the worker gives back: the families, or the first need's one-line error.
struct NeedsLoad {
  std::vector<FamilyDescription> families;
  QString error;
};
}  // namespace

FamilyFileGate::FamilyFileGate(QWidget* window, QObject* parent)
    : QObject(parent), window_(window) {
  setObjectName("familyFileGate");
}

void FamilyFileGate::askToRunCode(const QString& goLabel, std::function<void()> go,
                                  std::function<void()> declined) {
  if (agreed_) return go();
  auto* box = new QMessageBox(
      QMessageBox::Warning, tr("Load Encoding"),
      tr("Loading a TorchScript file runs its code, with PosLab's rights on this computer, as "
         "running a Python script would.\n\nLoad only files you trust (docs/ENCODINGS.md). "
         "PosLab says this once per session."),
      QMessageBox::NoButton, window_);
  box->setObjectName("encodingCodeNotice");
  QPushButton* yes = box->addButton(goLabel, QMessageBox::AcceptRole);
  box->addButton(QMessageBox::Cancel);
  box->setAttribute(Qt::WA_DeleteOnClose);
  connect(yes, &QPushButton::clicked, this, [this, go] {
    agreed_ = true;
    go();
  });
  if (declined) connect(box, &QMessageBox::rejected, this, [declined] { declined(); });
  box->open();  // never blocks the window or its training
}

void FamilyFileGate::load(const std::vector<FamilyFileNeed>& needs, const QString& source,
                          std::function<void()> then, std::function<void(const QString&)> failed) {
  const std::vector<FamilyFileNeed> pending = notLoaded(needs);
  if (pending.empty()) {
    then();
    Q_EMIT settled(true, {});
    return;
  }
  if (busy_) {
    showStatus(window_, tr("Still loading encodings: try again when they are loaded"));
    return;
  }
  busy_ = true;  // from the notice on: a second document waits for this one
  askToRunCode(
      tr("Load"),
      [this, pending, source, then, failed] { loadOffThread(pending, source, then, failed); },
      [this, failed] {
        busy_ = false;
        failed({});
        Q_EMIT settled(false, {});
      });
}

void FamilyFileGate::loadOffThread(const std::vector<FamilyFileNeed>& needs, const QString& source,
                                   std::function<void()> then,
                                   std::function<void(const QString&)> failed) {
  showStatus(window_, tr("Loading %n encoding(s) for %1 (their code runs its checks)…", nullptr,
                         static_cast<int>(needs.size()))
                          .arg(source));
  QPointer<FamilyFileGate> alive(this);
  auto finish = [alive, source, then, failed](const NeedsLoad& result) {
    if (!alive) return;
    FamilyFileGate& gate = *alive;
    gate.busy_ = false;
    showStatus(gate.window_, {});  // the "Loading…" line has ended; what follows says the outcome
    if (!result.error.isEmpty()) {
      const QString line = tr("%1: %2").arg(source, result.error);
      failed(line);
      Q_EMIT gate.settled(false, line);
      return;
    }
    for (const FamilyDescription& family : result.families) loadedFamilies().add(family);
    then();
    Q_EMIT gate.settled(true, {});
  };
  QThread* thread = QThread::create([needs, finish] {
    NeedsLoad result;
    for (const FamilyFileNeed& need : needs) {
      const FamilyLoad load = loadFamilyNeed(need);
      if (!load.family) {
        result.error = QString::fromStdString(load.error);
        break;
      }
      result.families.push_back(*load.family);
    }
    // Back on the UI thread, where `alive` is checked without a race.
    QMetaObject::invokeMethod(
        QCoreApplication::instance(), [finish, result] { finish(result); }, Qt::QueuedConnection);
  });
  thread->setObjectName("encoding-loader");
  connect(thread, &QThread::finished, thread, &QObject::deleteLater);
  thread->start();
}

}  // namespace poslab::ui
