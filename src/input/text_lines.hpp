#pragma once
// Lines of a text source (MIOpenDriver command files, benchdnn batch files) as tokens.
#include <cstddef>
#include <string>
#include <vector>

namespace dnnbench {

struct SourceLine {
  std::size_t number = 0;           // 1-based
  std::vector<std::string> tokens;  // split at blanks; a double-quoted part may hold blanks
};

// The lines that hold something: blank lines are left out, and so is everything from a token
// starting with `#` to the end of its line (a comment; MIOpenDriver's `-#` flag starts with '-').
std::vector<SourceLine> source_lines(const std::string& text);

}  // namespace dnnbench
