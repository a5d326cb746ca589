#include "session/session_families.h"

#include <QDir>
#include <QFileInfo>
#include <QObject>

#include <algorithm>
#include <set>

#include "bridge/loaded_families.h"
#include "io/input_file.h"

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
  return loadFileFamilies(usedFamilies(s));
}

bool preloadSessionFamilies(const QString& path, QString* error) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(readInputFile(path.toStdString(), "session file", kMaxJsonInputBytes),
                              nullptr, /*allow_exceptions=*/false);
  } catch (const std::exception&) {
    return true;  // loadSessionFile names the problem
  }
  if (!j.is_object() || !j.contains("family_files") || !j["family_files"].is_array()) return true;
  SessionState files;
  for (const auto& f : j["family_files"])
    if (f.is_object() && f.value("family", nlohmann::json()).is_string() &&
        f.value("hash", nlohmann::json()).is_string())
      files.familyFiles.push_back({f["family"].get<std::string>(), f["hash"].get<std::string>()});
  const QDir base = QFileInfo(path).absoluteDir();
  if (j.contains("trained_models") && j["trained_models"].is_array())
    for (const auto& m : j["trained_models"])
      if (m.is_object() && m.value("family", nlohmann::json()).is_string() &&
          m.value("file", nlohmann::json()).is_string())
        files.checkpoints.push_back(
            {m["family"].get<std::string>(),
             QDir::cleanPath(base.filePath(QString::fromStdString(m["file"].get<std::string>())))
                 .toStdString(),
             0});
  const QString problem = loadSessionFamilies(files);
  if (problem.isEmpty()) return true;
  *error = QObject::tr("session file %1: %2").arg(path, problem);
  return false;
}

QString loadFileFamilies(const std::vector<std::string>& families) {
  for (const std::string& id : families) {
    if (!isFileFamily(id) || findFamily(id)) continue;
    const FamilyLoad load = loadFamilyFile(id.substr(std::string(kFilePrefix).size()));
    if (!load.family) return q(load.error);
    loadedFamilies().add(*load.family);
  }
  return {};
}

}  // namespace poslab::ui
