// The content hash docs/SESSIONS.md names (FNV-1a 64 of a file's bytes, in hex), computed here
// from its definition, independently of core's contentHash, for the UI tests that check it.
#pragma once

#include <QFile>
#include <QString>

namespace poslab::ui::test {

inline QString fnv1a(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  quint64 h = 14695981039346656037ull;
  for (char c : f.readAll()) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return QString::number(h, 16).rightJustified(16, '0');
}

}  // namespace poslab::ui::test
