#pragma once
// Lower-casing of ASCII text (file suffixes, descriptor keys, option values): std::tolower per
// byte, which leaves UTF-8's multi-byte sequences alone.
#include <cctype>
#include <string>

namespace dnnbench {

inline std::string ascii_lower(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace dnnbench
