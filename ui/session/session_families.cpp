#include "session/session_families.h"

#include <QDir>
#include <QFileInfo>
#include <QObject>

#include <algorithm>
#include <functional>

#include "bridge/loaded_families.h"
#include "io/input_file.h"
#include "io/json_input.h"

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

std::vector<FamilyFileNeed> familyFileNeeds(const nlohmann::json& doc, const QDir& base) {
  std::vector<FamilyFileNeed> out;
  if (!doc.is_object()) return out;
  auto listed = [&](const std::string& id) {
    return std::any_of(out.begin(), out.end(),
                       [&](const FamilyFileNeed& n) { return n.family == id; });
  };
  if (const auto files = doc.find("family_files"); files != doc.end() && files->is_array())
    for (size_t i = 0; i < files->size(); ++i) {
      const nlohmann::json& f = (*files)[i];
      if (!f.is_object() || !f.value("family", nlohmann::json()).is_string() ||
          !f.value("hash", nlohmann::json()).is_string())
        continue;  // the session's reader names it
      const std::string id = f["family"].get<std::string>();
      if (!listed(id))
        out.push_back(
            {id, "family_files[" + std::to_string(i) + "]", f["hash"].get<std::string>(), {}});
    }
  // Every other string that is a file family id, where the document names it.
  std::function<void(const nlohmann::json&, const std::string&)> walk = [&](const nlohmann::json& j,
                                                                            const std::string& at) {
    if (j.is_string()) {
      const std::string id = j.get<std::string>();
      if (isFileFamily(id) && !listed(id)) out.push_back({id, at, {}, {}});
    } else if (j.is_array()) {
      for (size_t i = 0; i < j.size(); ++i) walk(j[i], at + "[" + std::to_string(i) + "]");
    } else if (j.is_object()) {
      for (const auto& [key, value] : j.items())
        if (key != "family_files") walk(value, at.empty() ? key : at + "." + key);
    }
  };
  walk(doc, "");
  if (const auto models = doc.find("trained_models"); models != doc.end() && models->is_array())
    for (const nlohmann::json& m : *models) {
      if (!m.is_object() || !m.value("family", nlohmann::json()).is_string() ||
          !m.value("file", nlohmann::json()).is_string())
        continue;
      const std::string family = m["family"].get<std::string>();
      for (FamilyFileNeed& need : out)
        if (need.family == family && need.checkpoint.empty())
          need.checkpoint =
              QDir::cleanPath(base.filePath(QString::fromStdString(m["file"].get<std::string>())))
                  .toStdString();
    }
  return out;
}

std::vector<FamilyFileNeed> familyFileNeeds(const SessionState& s) {
  std::vector<FamilyFileNeed> out;
  auto add = [&](const std::string& id, const std::string& field, const std::string& hash) {
    if (!isFileFamily(id) && hash.empty()) return;  // a built-in family
    if (std::any_of(out.begin(), out.end(),
                    [&](const FamilyFileNeed& n) { return n.family == id; }))
      return;
    FamilyFileNeed need{id, field, hash, {}};
    for (const SessionCheckpoint& c : s.checkpoints)
      if (c.family == id && need.checkpoint.empty()) need.checkpoint = c.file;
    out.push_back(need);
  };
  for (size_t i = 0; i < s.familyFiles.size(); ++i)
    add(s.familyFiles[i].family, "family_files[" + std::to_string(i) + "]", s.familyFiles[i].hash);
  for (const std::string& id : usedFamilies(s)) add(id, {}, {});
  return out;
}

std::vector<FamilyFileNeed> notLoaded(const std::vector<FamilyFileNeed>& needs) {
  std::vector<FamilyFileNeed> out;
  for (const FamilyFileNeed& need : needs) {
    const FamilyDescription* loaded = loadedFamilies().find(need.family);
    if (!loaded || (!need.hash.empty() && loaded->hash != need.hash)) out.push_back(need);
  }
  return out;
}

FamilyLoad loadFamilyNeed(const FamilyFileNeed& need) {
  auto named = [&](FamilyLoad load, const QString& note) {
    if (!load.family && !need.field.empty())
      load.error =
          QObject::tr("field '%1': %2%3").arg(q(need.field), q(load.error), note).toStdString();
    return load;
  };
  if (!isFileFamily(need.family))
    return {std::nullopt,
            QObject::tr("field '%1.family' = \"%2\" is not a file family (file:PATH.pt)")
                .arg(q(need.field), q(need.family))
                .toStdString()};
  const std::string path = need.family.substr(std::string(kFilePrefix).size());
  if (need.hash.empty()) {
    FamilyLoad load = loadFamilyFile(path);
    if (!load.family && !need.checkpoint.empty()) {
      FamilyLoad saved = loadFamilyFromCheckpoint(need.checkpoint, need.family);
      if (saved.family) return saved;
    }
    return named(load, {});
  }
  FamilyLoad load = loadFamilyFileWithHash(path, need.hash);
  if (!load.family && (load.fileMissing || load.fileChanged)) {
    // The trained model of that family keeps the module it was trained with.
    if (!need.checkpoint.empty()) {
      FamilyLoad saved = loadFamilyFromCheckpoint(need.checkpoint, need.family);
      if (saved.family) return saved;
    }
    return named(load, QObject::tr(" (the session keeps its path and hash, not its code; a "
                                   "session saved with trained models opens without the file)"));
  }
  return named(load, {});
}

QString loadFamilyNeeds(const std::vector<FamilyFileNeed>& needs) {
  for (const FamilyFileNeed& need : notLoaded(needs)) {
    const FamilyLoad load = loadFamilyNeed(need);
    if (!load.family) return q(load.error);
    loadedFamilies().add(*load.family);
  }
  return {};
}

QString loadSessionFamilies(const SessionState& s) {
  return loadFamilyNeeds(familyFileNeeds(s));
}

std::vector<FamilyFileNeed> sessionFileNeeds(const QString& path) {
  nlohmann::json j;
  try {
    const std::string text = readInputFile(path.toStdString(), "session file", kMaxJsonInputBytes);
    if (!jsonDepthProblem(text).empty()) return {};  // loadSessionFile names the problem
    j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  } catch (const std::exception&) {
    return {};  // loadSessionFile names the problem
  }
  return familyFileNeeds(j, QFileInfo(path).absoluteDir());
}

bool preloadSessionFamilies(const QString& path, QString* error) {
  const QString problem = loadFamilyNeeds(sessionFileNeeds(path));
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
