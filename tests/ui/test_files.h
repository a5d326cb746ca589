// Files the GUI tests write for the window to read (sessions, presets, lessons).
#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QTest>

// Writes `text` to `path` (replacing it); a failure fails the calling test.
inline void writeText(const QString& path, const QByteArray& text) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(text);
}
