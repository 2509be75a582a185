#include "graph/content_hash.hpp"

#include <fmt/format.h>

#include <cstdint>

#include <nlohmann/json.hpp>

namespace dnnbench {

std::string content_hash(std::string_view text) {
  // FNV-1a, 64 bits: stable across builds and platforms (std::hash is not), and only compared
  // with hashes of the same graph path, so collisions need not be guarded against.
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text) hash = (hash ^ c) * 0x100000001b3ull;
  return fmt::format("fnv1a64:{:016x}", hash);
}

std::optional<std::string> canonical_graph_content(std::string_view text) {
  auto doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return std::nullopt;
  doc.erase("name");
  return doc.dump();  // objects dump with sorted keys and no whitespace
}

}  // namespace dnnbench
