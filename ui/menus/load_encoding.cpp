#include "menus/load_encoding.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QSettings>

#include "bridge/loaded_families.h"
#include "error_report.h"
#include "explorer/parameter_panel.h"
#include "session/family_file_gate.h"

namespace poslab::ui {

namespace {
constexpr const char* kDirKey = "loadEncodingDir";
constexpr int kLoadedNoteMs = 15000;
}  // namespace

EncodingLoader::EncodingLoader(QWidget* window, ParameterPanel* parameters, FamilyFileGate* gate,
                               QObject* parent)
    : QObject(parent), window_(window), parameters_(parameters), gate_(gate) {}

bool EncodingLoader::agreed() const {
  return gate_->agreed();
}

void EncodingLoader::request() {
  gate_->askToRunCode(tr("Choose a file…"), [this] { chooseFile(); });
}

void EncodingLoader::chooseFile() {
  // Opened, not exec'd: the window (and a training run) goes on while the dialog shows. It starts
  // in the folder of the last file loaded, while that folder exists (a folder that is gone left
  // the dialog's list with a stale selection that Open took for the choice).
  QString folder = QSettings().value(kDirKey).toString();
  if (!QFileInfo(folder).isDir()) folder.clear();
  auto* dialog = new QFileDialog(window_, tr("Load Encoding"), folder,
                                 tr("TorchScript encodings (*.pt);;All files (*)"));
  dialog->setObjectName(QStringLiteral("loadEncodingDialog"));
  dialog->setFileMode(QFileDialog::ExistingFile);
  dialog->setAcceptMode(QFileDialog::AcceptOpen);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QFileDialog::fileSelected, this, [this](const QString& path) {
    if (path.isEmpty()) return;
    QSettings().setValue(kDirKey, QFileInfo(path).absolutePath());
    load(path);
  });
  dialog->open();
}

void EncodingLoader::load(const QString& path) {
  gate_->setAgreed();  // a caller that loads directly has said so itself
  const QString absolute = QFileInfo(path).absoluteFilePath();
  showStatus(window_, tr("Loading encoding %1 (its code runs its checks)…").arg(absolute));
  loadFamilyFileAsync(absolute, this, [this](const FamilyLoad& result) {
    if (!result.family) {
      const QString error = QString::fromStdString(result.error);
      showError(window_, {tr("Cannot load encoding"), error}, QStringLiteral("loadEncodingError"));
      Q_EMIT finished(false, error);
      return;
    }
    const FamilyDescription& family = *result.family;
    loadedFamilies().add(family);
    parameters_->setFamily(family.id);
    showStatus(window_,
               tr("Loaded %1 from %2: in the family lists for this session")
                   .arg(QString::fromStdString(family.title), QString::fromStdString(family.path)),
               kLoadedNoteMs);
    Q_EMIT finished(true, QString::fromStdString(family.id));
  });
}

}  // namespace poslab::ui
