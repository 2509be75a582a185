#pragma once
// A graph's identity by content: two graph files are the same graph when their JSON is equal
// once the top-level `name` is removed (key order and whitespace do not matter). The suite's
// duplicates (run/graph_loader.hpp), import manifests, the journal and the compiled-plan cache
// key on it.
#include <optional>
#include <string>
#include <string_view>

namespace dnnbench {

// The content two graphs are compared on (see above); nullopt when `text` is not a JSON object.
std::optional<std::string> canonical_graph_content(std::string_view text);

// A short stable hash of `text` (of canonical_graph_content): "fnv1a64:<16 hex digits>".
std::string content_hash(std::string_view text);

}  // namespace dnnbench
