#pragma once
// Lines of a text source (MIOpenDriver command files, benchdnn batch files) as tokens.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dnnbench {

struct SourceLine {
  std::size_t number = 0;           // 1-based
  std::vector<std::string> tokens;  // split at blanks; a double-quoted part may hold blanks
};

// The lines that hold something: blank lines are left out, and so is everything from a token
// starting with `#` to the end of its line (a comment; MIOpenDriver's `-#` flag starts with '-').
std::vector<SourceLine> source_lines(const std::string& text);

// `text` as a non-negative decimal integer of at most 2^53 (sizes and counts; larger values are
// no real problem's and would overflow the products of dims); nullopt otherwise.
std::optional<std::int64_t> parse_size(std::string_view text);

}  // namespace dnnbench
