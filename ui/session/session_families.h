// The families loaded from TorchScript files that a session uses (the explorer's, the kernel
// overlays', the training setup's), kept in the session by path (the id file:PATH) and content
// hash: "family_files" (docs/SESSIONS.md). Opening the session loads each as it was saved: from
// its file when the file still holds that content, else from the session's trained model of that
// family (a checkpoint keeps the module, so such a run opens without the file). A missing or
// changed file with no trained model to fall back on is refused, naming the file; it is never
// used silently.
#pragma once

#include <QString>

#include <vector>

#include "session/session_state.h"

namespace poslab::ui {

// The file families `state` uses, each with the content hash of what is loaded now.
std::vector<SessionFamilyFile> usedFamilyFiles(const SessionState& state);

// Loads every family of state.familyFiles that is not loaded with that hash, and every file
// family `state` uses without listing it (a hand-written session: loaded from its path). Empty,
// or the first problem naming the field and the file. The modules' checks run on the calling
// thread (a small probe input); a family loaded here joins the family lists even when a later
// check of the session refuses it.
QString loadSessionFamilies(const SessionState& state);

// The file families of the session file at `path` (its family_files, with its trained models to
// fall back on), loaded before the session is read: reading its training setup checks every
// family it names, and a file family must be there, as it was saved, by then. False with *error
// naming the session file; true when there is nothing to load or the file is not a session
// (loadSessionFile then says what is wrong).
bool preloadSessionFamilies(const QString& path, QString* error);

// Loads each file family among `families` that is not loaded yet, from its path as it is now (a
// preset that names one). Empty, or the first problem naming the file.
QString loadFileFamilies(const std::vector<std::string>& families);

}  // namespace poslab::ui
