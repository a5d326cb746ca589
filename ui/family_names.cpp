#include "family_names.h"

#include <QFileInfo>
#include <QObject>

#include "bridge/catalog.h"
#include "bridge/loaded_families.h"

namespace poslab::ui {

namespace {
constexpr const char* kFilePrefix = "file:";  // core's kFileFamilyPrefix (torch-free here)

bool isFileFamily(const std::string& id) {
  return id.rfind(kFilePrefix, 0) == 0;
}

QString fileName(const std::string& id) {
  return QFileInfo(QString::fromStdString(id.substr(std::string(kFilePrefix).size()))).fileName();
}
}  // namespace

QString familyShortName(const std::string& id) {
  if (!isFileFamily(id)) return QString::fromStdString(id);
  const FamilyDescription* family = findFamily(id);
  if (!family || family->title.empty()) return fileName(id);
  const QString title = QString::fromStdString(family->title);
  for (const std::string& other : loadedFamilies().ids()) {
    const FamilyDescription* o = other == id ? nullptr : findFamily(other);
    if (o && o->title == family->title) return QObject::tr("%1 (%2)").arg(title, fileName(id));
  }
  return title;
}

QString familyToolTip(const std::string& id) {
  const FamilyDescription* family = isFileFamily(id) ? findFamily(id) : nullptr;
  if (!family) return QString::fromStdString(id);
  return QObject::tr("%1\n%2\nloaded from a file, content hash %3")
      .arg(QString::fromStdString(family->title), QString::fromStdString(id),
           QString::fromStdString(family->hash));
}

}  // namespace poslab::ui
