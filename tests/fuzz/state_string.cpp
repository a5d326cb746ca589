// Fuzzes the paste-state string (ui/session/session_io.h decodeStateString): the text a user pastes
// with Edit > Paste State. The first byte picks how the rest becomes the pasted text, so that the
// fuzzer reaches every layer and not only the prefix check:
//   0: the rest as UTF-8 text, as pasted;
//   1: "poslab1." + base64url(rest): a forged qCompress header and zlib stream;
//   2: "poslab1." + base64url(qCompress(rest)): any bytes as the packed JSON.
// Every text must be accepted or refused with a message; an accepted state must survive
// encodeStateString / decodeStateString unchanged.
#include <QByteArray>
#include <QString>

#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "session/session_io.h"
#include "session/session_state.h"

namespace {

QString pastedText(const uint8_t* data, size_t size) {
  if (size == 0) return {};
  const QByteArray rest(reinterpret_cast<const char*>(data + 1), static_cast<qsizetype>(size - 1));
  const auto base64url = [](const QByteArray& bytes) {
    return QString::fromLatin1(
        bytes.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
  };
  const QString prefix = QString::fromLatin1(poslab::ui::kStateStringPrefix);
  switch (data[0] % 3) {
    case 0:
      return QString::fromUtf8(rest);
    case 1:
      return prefix + base64url(rest);
    default:
      return prefix + base64url(qCompress(rest));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace poslab::ui;
  SessionState state;
  QString error;
  if (!decodeStateString(pastedText(data, size), &state, &error)) {
    poslab::fuzz::require(!error.isEmpty(), "a refused state string says why");
    return 0;
  }
  const QString encoded = encodeStateString(state);
  SessionState again;
  QString againError;
  poslab::fuzz::require(decodeStateString(encoded, &again, &againError),
                        "an accepted state string decodes from its own encoding",
                        againError.toStdString());
  poslab::fuzz::require(sessionToJson(again) == sessionToJson(state),
                        "a state string's round trip is exact");
  return 0;
}
