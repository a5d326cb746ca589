#include "session/session_families.h"

#include <QObject>

#include <algorithm>
#include <set>

#include "bridge/loaded_families.h"

namespace poslab::ui {

namespace {

constexpr const char* kFilePrefix = "file:";  // core's kFileFamilyPrefix (torch-free here)

bool isFileFamily(const std::string& id) {
  return id.rfind(kFilePrefix, 0) == 0;
}

// Every family id the session uses, in a stable order, once each.
std::vector<std::string> usedFamilies(const SessionState& s) {
  std::vector<std::string> all{s.family};
  all.insert(all.end(), s.views.kernel.overlay.begin(), s.views.kernel.overlay.end());
  all.insert(all.end(), s.training.families.begin(), s.training.families.end());
  std::vector<std::string> out;
  for (const std::string& id : all)
    if (isFileFamily(id) && std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  return out;
}

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

}  // namespace

std::vector<SessionFamilyFile> usedFamilyFiles(const SessionState& state) {
  std::vector<SessionFamilyFile> out;
  for (const std::string& id : usedFamilies(state))
    if (const FamilyDescription* f = findFamily(id)) out.push_back({id, f->hash});
  return out;
}

QString loadSessionFamilies(const SessionState& s) {
  for (size_t i = 0; i < s.familyFiles.size(); ++i) {
    const SessionFamilyFile& file = s.familyFiles[i];
    const QString field = QStringLiteral("family_files[%1]").arg(i);
    if (!isFileFamily(file.family))
      return QObject::tr("field '%1.family' = \"%2\" is not a file family (file:PATH.pt)")
          .arg(field, q(file.family));
    const FamilyDescription* loaded = loadedFamilies().find(file.family);
    if (loaded && loaded->hash == file.hash) continue;
    const std::string path = file.family.substr(std::string(kFilePrefix).size());
    FamilyLoad load = loadFamilyFileWithHash(path, file.hash);
    if (!load.family && (load.fileMissing || load.fileChanged)) {
      // The trained model of that family keeps the module it was trained with.
      auto model =
          std::find_if(s.checkpoints.begin(), s.checkpoints.end(),
                       [&](const SessionCheckpoint& c) { return c.family == file.family; });
      if (model != s.checkpoints.end()) {
        FamilyLoad saved = loadFamilyFromCheckpoint(model->file, file.family);
        if (saved.family) load = saved;
      }
    }
    if (!load.family)
      return QObject::tr("field '%1': %2%3")
          .arg(field, q(load.error),
               load.fileMissing || load.fileChanged
                   ? QObject::tr(" (the session keeps its path and hash, not its code; a session "
                                 "saved with trained models opens without the file)")
                   : QString());
    loadedFamilies().add(*load.family);
  }
  // A file family the session uses but does not list: loaded from its path as it is now.
  for (const std::string& id : usedFamilies(s)) {
    const bool listed = std::any_of(s.familyFiles.begin(), s.familyFiles.end(),
                                    [&](const SessionFamilyFile& f) { return f.family == id; });
    if (listed || findFamily(id)) continue;
    const FamilyLoad load = loadFamilyFile(id.substr(std::string(kFilePrefix).size()));
    if (!load.family) return q(load.error);
    loadedFamilies().add(*load.family);
  }
  return {};
}

}  // namespace poslab::ui
