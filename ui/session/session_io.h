// .poslab session files and the copy/paste state string. Saving is atomic (QSaveFile: a crash or
// a full disk never leaves half a session behind); reading checks everything it can without a
// window (JSON syntax, the format tag, each field's type) and names the file and the field.
#pragma once

#include <QString>

#include "session/session_state.h"

namespace poslab::ui {

// Writes `state` as indented JSON. False with *error ("cannot write FILE: reason").
bool saveSessionFile(const QString& path, const SessionState& state, QString* error);
// Reads FILE into *out. False with *error naming FILE and the problem (missing, unreadable, not
// JSON with the line and column, wrong format tag, a field of the wrong type).
// Trained-model files (trained_models[].file) come back absolute, resolved against FILE's
// directory.
bool loadSessionFile(const QString& path, SessionState* out, QString* error);

// The state string: "poslab1." + base64url(qCompress(compact JSON)), one line, no padding.
inline constexpr const char* kStateStringPrefix = "poslab1.";
QString encodeStateString(const SessionState& state);
// False with *error for anything that is not a state string of this version.
bool decodeStateString(const QString& text, SessionState* out, QString* error);
// The JSON a state string packs, before its fields are read (FamilyFileGate looks there for the
// family files to load first). False with *error as decodeStateString.
bool decodeStateJson(const QString& text, nlohmann::json* out, QString* error);

}  // namespace poslab::ui
