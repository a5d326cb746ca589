#include "menus/load_encoding.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>

#include "bridge/loaded_families.h"
#include "error_report.h"
#include "explorer/parameter_panel.h"

namespace poslab::ui {

namespace {
constexpr const char* kDirKey = "loadEncodingDir";
constexpr int kLoadedNoteMs = 15000;
}  // namespace

EncodingLoader::EncodingLoader(QWidget* window, ParameterPanel* parameters, QObject* parent)
    : QObject(parent), window_(window), parameters_(parameters) {}

void EncodingLoader::request() {
  if (agreed_) return chooseFile();
  auto* box = new QMessageBox(
      QMessageBox::Warning, tr("Load Encoding"),
      tr("Loading a TorchScript file runs its code, with PosLab's rights on this computer, as "
         "running a Python script would.\n\nLoad only files you trust (docs/ENCODINGS.md). "
         "PosLab says this once per session."),
      QMessageBox::NoButton, window_);
  box->setObjectName("encodingCodeNotice");
  QPushButton* go = box->addButton(tr("Choose a file…"), QMessageBox::AcceptRole);
  box->addButton(QMessageBox::Cancel);
  box->setAttribute(Qt::WA_DeleteOnClose);
  connect(go, &QPushButton::clicked, this, [this] {
    agreed_ = true;
    chooseFile();
  });
  box->open();  // never blocks the window or its training
}

void EncodingLoader::chooseFile() {
  QSettings settings;
  const QString path =
      QFileDialog::getOpenFileName(window_, tr("Load Encoding"), settings.value(kDirKey).toString(),
                                   tr("TorchScript encodings (*.pt);;All files (*)"));
  if (path.isEmpty()) return;
  settings.setValue(kDirKey, QFileInfo(path).absolutePath());
  load(path);
}

void EncodingLoader::load(const QString& path) {
  agreed_ = true;  // a caller that loads directly has said so itself
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
