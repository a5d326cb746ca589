#include "session/session_io.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <cstdint>
#include <string>

#include "io/input_file.h"
#include "io/json_input.h"
#include "util/error.h"

namespace poslab::ui {

namespace {

// Parses JSON text; on a syntax error says where (line and column, counted from the byte offset).
bool parseJson(const QByteArray& bytes, nlohmann::json* out, QString* error) {
  // Deeper nesting than the formats have would overflow the stack when the document is copied.
  if (const std::string deep = jsonDepthProblem(bytes.toStdString()); !deep.empty()) {
    *error = QString::fromStdString(deep);
    return false;
  }
  try {
    *out = nlohmann::json::parse(bytes.constData(), bytes.constData() + bytes.size());
    return true;
  } catch (const nlohmann::json::parse_error& e) {
    const qsizetype offset = std::min<qsizetype>(static_cast<qsizetype>(e.byte), bytes.size());
    const QByteArray before = bytes.left(offset > 0 ? offset - 1 : 0);
    const int line = static_cast<int>(before.count('\n')) + 1;
    const int column = static_cast<int>(before.size() - before.lastIndexOf('\n'));
    // "[json.exception.parse_error.101] parse error at line 1, column 40: syntax error ..."
    const std::string what = e.what();
    const auto colon = what.find(": ");
    const std::string detail = colon == std::string::npos ? what : what.substr(colon + 2);
    *error = QObject::tr("not valid JSON at line %1, column %2 (%3)")
                 .arg(line)
                 .arg(column)
                 .arg(QString::fromStdString(detail));
    return false;
  } catch (const nlohmann::json::exception& e) {
    // out_of_range 406: a number literal no double can hold ("gamma": 1e400).
    const std::string what = e.what();
    const auto bracket = what.find("] ");
    *error = QObject::tr("not valid JSON (%1)")
                 .arg(QString::fromStdString(
                     bracket == std::string::npos ? what : what.substr(bracket + 2)));
    return false;
  }
}

}  // namespace

bool saveSessionFile(const QString& path, const SessionState& state, QString* error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    *error = QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  const std::string text = sessionToJson(state).dump(2) + "\n";
  if (file.write(text.data(), static_cast<qint64>(text.size())) !=
          static_cast<qint64>(text.size()) ||
      !file.commit()) {
    *error = QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

bool loadSessionFile(const QString& path, SessionState* out, QString* error) {
  if (!QFileInfo::exists(path)) {
    *error = QObject::tr("session file %1 does not exist").arg(path);
    return false;
  }
  // Regular files only and at most kMaxJsonInputBytes: a FIFO or /dev/zero cannot hang or
  // exhaust memory.
  QByteArray bytes;
  try {
    const std::string data = readInputFile(path.toStdString(), "session file", kMaxJsonInputBytes);
    bytes = QByteArray(data.data(), static_cast<qsizetype>(data.size()));
  } catch (const Error& e) {
    *error = QString::fromStdString(e.what());
    return false;
  }
  nlohmann::json j;
  QString problem;
  if (!parseJson(bytes, &j, &problem) || !sessionFromJson(j, *out, &problem)) {
    *error = QObject::tr("session file %1: %2").arg(path, problem);
    return false;
  }
  // Trained models are stored relative to the session file's directory.
  const QDir base = QFileInfo(path).absoluteDir();
  for (SessionCheckpoint& c : out->checkpoints)
    if (QFileInfo(QString::fromStdString(c.file)).isRelative())
      c.file = QDir::cleanPath(base.filePath(QString::fromStdString(c.file))).toStdString();
  return true;
}

QString encodeStateString(const SessionState& state) {
  const std::string text = sessionToJson(state).dump();
  const QByteArray packed =
      qCompress(QByteArray(text.data(), static_cast<qsizetype>(text.size())), 9);
  return QString::fromLatin1(kStateStringPrefix) +
         QString::fromLatin1(
             packed.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

bool decodeStateJson(const QString& text, nlohmann::json* out, QString* error) {
  const QString t = text.trimmed();
  const QString prefix = QString::fromLatin1(kStateStringPrefix);
  if (t.isEmpty()) {
    *error =
        QObject::tr("the clipboard holds no text; copy a PosLab state first (File > Copy State)");
    return false;
  }
  if (!t.startsWith(prefix)) {
    if (t.startsWith("poslab") && t.indexOf('.') > 0)
      *error =
          QObject::tr("the state string is of another PosLab version ('%1'); this one reads '%2'")
              .arg(t.left(t.indexOf('.') + 1), prefix);
    else
      *error = QObject::tr("the text is not a PosLab state string (it should start with '%1')")
                   .arg(prefix);
    return false;
  }
  if (static_cast<std::uintmax_t>(t.size()) > kMaxJsonInputBytes) {
    *error =
        QObject::tr("the state string is %1 characters, more than a state can have").arg(t.size());
    return false;
  }
  const auto decoded = QByteArray::fromBase64Encoding(
      t.mid(prefix.size()).toLatin1(),
      QByteArray::Base64UrlEncoding | QByteArray::AbortOnBase64DecodingErrors);
  // qUncompress allocates the size its 4-byte big-endian header claims: check it first, so a
  // forged header cannot ask for gigabytes.
  if (decoded && (*decoded).size() >= 4) {
    const auto* h = reinterpret_cast<const unsigned char*>((*decoded).constData());
    const std::uintmax_t claimed = (std::uintmax_t{h[0]} << 24) | (std::uintmax_t{h[1]} << 16) |
                                   (std::uintmax_t{h[2]} << 8) | std::uintmax_t{h[3]};
    if (claimed > kMaxJsonInputBytes) {
      *error = QObject::tr(
                   "the state string is damaged (it claims to unpack to %1 bytes, more than a "
                   "state can have)")
                   .arg(static_cast<qulonglong>(claimed));
      return false;
    }
  }
  const QByteArray json = decoded ? qUncompress(decoded.decoded) : QByteArray();
  if (!decoded || json.isEmpty()) {
    *error = QObject::tr(
        "the state string is damaged (not complete base64url-packed data; was it "
        "cut short when copied?)");
    return false;
  }
  QString problem;
  if (!parseJson(json, out, &problem)) {
    *error = QObject::tr("the state string: %1").arg(problem);
    return false;
  }
  return true;
}

bool decodeStateString(const QString& text, SessionState* out, QString* error) {
  nlohmann::json j;
  if (!decodeStateJson(text, &j, error)) return false;
  QString problem;
  if (!sessionFromJson(j, *out, &problem)) {
    *error = QObject::tr("the state string: %1").arg(problem);
    return false;
  }
  return true;
}

}  // namespace poslab::ui
