// Families written in PyTorch (TorchScript), loaded at run time: `file:PATH.pt` is a family id
// everywhere a built-in id goes (docs/ENCODINGS.md). The first use of an id reads the file,
// checks the module on a probe input (torchscript_check.cpp) and registers it for the rest of the
// process; the registry (registry.h) hands it out like any other family. Torch-free header.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "encodings/encoding.h"

namespace poslab {

// The prefix of a loaded family's id: "file:my_encoding.pt".
inline constexpr const char* kFileFamilyPrefix = "file:";
// Largest TorchScript file PosLab reads (a position encoding is a few kilobytes).
constexpr std::uintmax_t kMaxEncodingFileBytes = 64ull << 20;

bool isFileFamilyId(const std::string& id);

// The family of `id` ("file:PATH"), loaded and checked on first use. Throws InvalidArgument with
// one line naming the file, the method and what was wrong.
const FamilyInfo& fileFamilyInfo(const std::string& id);
std::unique_ptr<Encoding> makeFileFamily(const std::string& id, ParamSet params);

// Registers `id` from the module's bytes (a checkpoint's or a session's copy), checked as a file
// is; a later use of `id` gets this content, not the file's. Replaces an earlier registration of
// the same id with other content (encodings already built keep theirs).
void registerFileFamily(const std::string& id, const std::string& bytes);

// The module's bytes and their content hash (FNV-1a 64, hex) of a loaded id, for checkpoints and
// sessions. Throws InvalidArgument if `id` is not loaded and cannot be.
std::string fileFamilyBytes(const std::string& id);
std::string fileFamilyHash(const std::string& id);
std::string contentHash(const std::string& bytes);

// The loaded families, in the order they were loaded (the GUI's list adds them).
std::vector<const FamilyInfo*> loadedFileFamilies();

// The symbol a loaded family's metadata gives `param`, or an empty string.
std::string fileFamilyParamSymbol(const std::string& id, const std::string& param);

}  // namespace poslab
