// Families loaded from TorchScript files this session (File > Load Encoding..., a session's
// family files, a trained model's checkpoint): core registers the module (file:PATH,
// encodings/torchscript_family.h); the UI keeps its description here, next to the built-in
// catalog (catalog.h's findFamily finds both), and tells the family lists that it arrived.
// Loading runs the module's code: loadFamilyFile is slow and belongs off the UI thread.
#pragma once

#include <QObject>
#include <QString>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bridge/catalog.h"

namespace poslab::ui {

// What a load gives: the family, or one line naming the file, the method and what was wrong.
struct FamilyLoad {
  std::optional<FamilyDescription> family;
  std::string error;
  bool fileMissing = false;  // loadFamilyFileWithHash: no such file
  bool fileChanged = false;  // loadFamilyFileWithHash: the file's content has another hash
};

// Reads PATH, checks the module on core's probe and registers it as file:PATH (a file loaded
// again with other content replaces the earlier one for encodings built from now on). Never
// throws. Thread-safe; runs the module's code.
FamilyLoad loadFamilyFile(const std::string& path);
// The same from bytes already read (a session's check of the file's hash read them).
FamilyLoad loadFamilyBytes(const std::string& path, const std::string& bytes);
// A session's family (session_families.h): the file must still hold what was saved, content
// hash `hash`; a missing or changed file is refused (flagged), never loaded silently.
FamilyLoad loadFamilyFileWithHash(const std::string& path, const std::string& hash);
// The module a trained model's checkpoint keeps (core's registerCheckpointEncoding), as family
// `id`; an error when the checkpoint keeps none for `id`.
FamilyLoad loadFamilyFromCheckpoint(const std::string& checkpoint, const std::string& id);
// The family core already holds under `id` (registered from a checkpoint, say), without reading
// any file; nullopt when core holds none.
std::optional<FamilyDescription> registeredFileFamily(const std::string& id);

// loadFamilyFile on its own thread; `done` runs on the UI thread, unless `context` is gone by
// then.
void loadFamilyFileAsync(const QString& path, QObject* context,
                         std::function<void(const FamilyLoad&)> done);

// The file families the UI lists (UI thread for add, any thread for find). Descriptions are
// never freed: a reload adds a new one and find returns the newest.
class LoadedFamilies : public QObject {
  Q_OBJECT
 public:
  // Adds `family` (or replaces the listed one of the same id) and emits familyAdded.
  void add(const FamilyDescription& family);
  const FamilyDescription* find(const std::string& id) const;
  // The ids in the order they were first added.
  std::vector<std::string> ids() const;

 Q_SIGNALS:
  // A family was added, or loaded again (its parameters may have changed).
  void familyAdded(const QString& id);

 private:
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<const FamilyDescription>> kept_;
  std::map<std::string, const FamilyDescription*> newest_;
  std::vector<std::string> order_;
};

// The one list of the process.
LoadedFamilies& loadedFamilies();

}  // namespace poslab::ui
