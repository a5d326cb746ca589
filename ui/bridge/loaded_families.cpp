// Bridge TU: loads TorchScript families through core's registry (encodings/torchscript_family.h).
#include "bridge/loaded_families.h"

#include <QCoreApplication>
#include <QPointer>
#include <QThread>

#include <exception>

#include "encodings/registry.h"
#include "encodings/torchscript_family.h"
#include "io/input_file.h"
#include "train/checkpoint_encoding.h"

namespace poslab::ui {

namespace {

std::string fileId(const std::string& path) {
  return kFileFamilyPrefix + path;
}

FamilyDescription describe(const FamilyInfo& info) {
  FamilyDescription d;
  d.id = info.id;
  d.title = info.title;
  d.formula = info.formula;
  d.summary = info.summary;
  d.params = info.params;
  d.path = info.id.substr(std::string(kFileFamilyPrefix).size());
  d.hash = fileFamilyHash(info.id);
  for (const ParamSpec& p : info.params) {
    const std::string symbol = fileFamilyParamSymbol(info.id, p.name);
    if (!symbol.empty()) d.symbols[p.name] = symbol;
  }
  return d;
}

}  // namespace

FamilyLoad loadFamilyBytes(const std::string& path, const std::string& bytes) {
  FamilyLoad out;
  try {
    const std::string id = fileId(path);
    registerFileFamily(id, bytes);
    out.family = describe(familyInfo(id));
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

FamilyLoad loadFamilyFile(const std::string& path) {
  try {
    return loadFamilyBytes(path, readInputFile(path, "encoding file", kMaxEncodingFileBytes));
  } catch (const std::exception& e) {
    return {std::nullopt, e.what()};
  }
}

FamilyLoad loadFamilyFileWithHash(const std::string& path, const std::string& hash) {
  FamilyLoad out;
  std::string bytes;
  try {
    bytes = readInputFile(path, "encoding file", kMaxEncodingFileBytes);
  } catch (const std::exception& e) {
    out.fileMissing = true;
    out.error = e.what();
    return out;
  }
  const std::string now = contentHash(bytes);
  if (now != hash) {
    out.fileChanged = true;
    out.error = "encoding file '" + path + "' changed since it was saved (content hash " + hash +
                ", now " + now + ")";
    return out;
  }
  return loadFamilyBytes(path, bytes);
}

FamilyLoad loadFamilyFromCheckpoint(const std::string& checkpoint, const std::string& id) {
  FamilyLoad out;
  try {
    if (registerCheckpointEncoding(checkpoint) != id) {
      out.error = "trained model '" + checkpoint + "' keeps no module of " + id;
      return out;
    }
    out.family = describe(familyInfo(id));
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

std::optional<FamilyDescription> registeredFileFamily(const std::string& id) {
  for (const FamilyInfo* info : loadedFileFamilies())
    if (info->id == id) return describe(*info);
  return std::nullopt;
}

void loadFamilyFileAsync(const QString& path, QObject* context,
                         std::function<void(const FamilyLoad&)> done) {
  QPointer<QObject> alive(context);
  const std::string file = path.toStdString();
  QThread* thread = QThread::create([file, alive, done] {
    FamilyLoad result = loadFamilyFile(file);
    // Back on the UI thread, where `alive` is checked without a race.
    QMetaObject::invokeMethod(
        QCoreApplication::instance(),
        [alive, done, result] {
          if (alive) done(result);
        },
        Qt::QueuedConnection);
  });
  thread->setObjectName("encoding-loader");
  QObject::connect(thread, &QThread::finished, thread, &QObject::deleteLater);
  thread->start();
}

void LoadedFamilies::add(const FamilyDescription& family) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    kept_.push_back(std::make_unique<const FamilyDescription>(family));
    if (!newest_.count(family.id)) order_.push_back(family.id);
    newest_[family.id] = kept_.back().get();
  }
  Q_EMIT familyAdded(QString::fromStdString(family.id));
}

const FamilyDescription* LoadedFamilies::find(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = newest_.find(id);
  return it == newest_.end() ? nullptr : it->second;
}

std::vector<std::string> LoadedFamilies::ids() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return order_;
}

LoadedFamilies& loadedFamilies() {
  static LoadedFamilies* families = new LoadedFamilies;  // lives as long as the process
  return *families;
}

}  // namespace poslab::ui
