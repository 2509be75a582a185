#include "input/text_lines.hpp"

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

}  // namespace dnnbench
