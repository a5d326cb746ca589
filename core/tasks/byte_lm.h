// Byte-level language modelling (docs/MATH.md 3.5): the bytes of a UTF-8 text file are the tokens.
#pragma once

#include <string>
#include <vector>

namespace poslab {

// Where the default corpus comes from, for help texts and run records.
std::string defaultCorpusDescription();
// The directory holding the default corpus (the Debian fortunes packages' text files).
std::string defaultCorpusDirectory();
// The default corpus's files in that directory, in the order they are concatenated.
std::vector<std::string> defaultCorpusFiles();

}  // namespace poslab
