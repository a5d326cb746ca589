// The family module a checkpoint keeps (docs/ENCODINGS.md): a run of a family loaded from a
// TorchScript file carries the module's bytes, so that the run (and a GUI session that names it)
// opens without the original file. Torch-free header.
#pragma once

#include <string>

namespace poslab {

// Registers the family module that the checkpoint at `path` keeps under its family id (file:PATH,
// encodings/torchscript_family.h), checked as a file is, and returns that id; an empty string
// when the checkpoint's family is not a file family or it keeps no module. Throws Error naming the
// checkpoint when it cannot be read or its module is refused.
std::string registerCheckpointEncoding(const std::string& path);

}  // namespace poslab
