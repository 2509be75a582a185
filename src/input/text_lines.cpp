#include "input/text_lines.hpp"

#include <charconv>
#include <sstream>

namespace dnnbench {

std::vector<SourceLine> source_lines(const std::string& text) {
  std::vector<SourceLine> lines;
  std::istringstream in(text);
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    SourceLine out{number, {}};
    std::string token;
    bool quoted = false, comment = false;
    const auto flush = [&] {
      if (token.empty()) return;
      if (token[0] == '#')
        comment = true;
      else
        out.tokens.push_back(token);
      token.clear();
    };
    for (char c : line) {
      if (comment) break;
      if (c == '"') quoted = !quoted;
      if (!quoted && (c == ' ' || c == '\t' || c == '\r')) {
        flush();
        continue;
      }
      token += c;
    }
    if (!comment) flush();
    if (!out.tokens.empty()) lines.push_back(std::move(out));
  }
  return lines;
}

std::optional<std::int64_t> parse_size(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0 ||
      value > (std::int64_t{1} << 53))
    return std::nullopt;
  return value;
}

}  // namespace dnnbench
