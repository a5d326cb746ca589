// Fuzzes the session reader (ui/session/session_io.h loadSessionFile, then session_json.cpp's
// shape check and core's strict experiment reader): any bytes as a .poslab file must be accepted
// or refused with a message, never crash, hang or exhaust memory; a session it accepts must read
// back unchanged from its own JSON (what File > Save writes).
#include <QString>

#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "session/session_io.h"
#include "session/session_state.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace poslab::ui;
  const std::string path = poslab::fuzz::writeScratchFile(data, size, "session.poslab");
  SessionState state;
  QString error;
  if (!loadSessionFile(QString::fromStdString(path), &state, &error)) {
    poslab::fuzz::require(!error.isEmpty(), "a refused session says why");
    return 0;
  }
  const nlohmann::json saved = sessionToJson(state);
  SessionState again;
  QString againError;
  poslab::fuzz::require(sessionFromJson(saved, again, &againError),
                        "an accepted session reads back from its own JSON",
                        againError.toStdString());
  poslab::fuzz::require(sessionToJson(again) == saved, "a session's JSON round trip is exact",
                        saved.dump());
  return 0;
}
