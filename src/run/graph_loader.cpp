#include "run/graph_loader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "env/memory_budget.hpp"
#include "graph/errors.hpp"
#include "graph/ops/op_rules.hpp"
#include "graph/reader.hpp"
#include "graph/validate.hpp"

namespace dnnbench {
namespace {

std::string read_input_text(const GraphInput& input) {
  std::error_code ec;
  if (std::filesystem::is_directory(input.file, ec))
    throw InputError(input.path, "", "is a directory; expected a graph JSON file");
  std::ifstream in(input.file, std::ios::binary);
  if (!in) throw InputError(input.path, "", std::string("cannot open the file: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    throw InputError(input.path, "", std::string("cannot read the file: ") + std::strerror(errno));
  return text.str();
}

// "ConvolutionFwdAttributes", "ConvolutionFwd", "convolution_fwd" -> "convolutionfwd".
std::string op_key(std::string_view text) {
  std::string key;
  for (char c : text)
    if (c != '_' && c != '-') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  constexpr std::string_view suffix = "attributes";
  if (key.size() > suffix.size() && key.ends_with(suffix)) key.resize(key.size() - suffix.size());
  return key;
}

}  // namespace

bool graph_has_op(const Graph& graph, const std::vector<std::string>& ops) {
  if (ops.empty()) return true;
  for (const auto& node : graph.nodes) {
    const auto type = op_key(node.type);
    const auto family = op_key(op_kind_name(node.kind));
    for (const auto& op : ops) {
      const auto wanted = op_key(op);
      if (wanted == type || (node.kind != OpKind::unsupported && wanted == family)) return true;
    }
  }
  return false;
}

std::string unknown_op_message(const std::vector<std::string>& ops) {
  const auto families = op_family_names();
  for (const auto& op : ops) {
    const auto wanted = op_key(op);
    std::vector<std::string_view> spellings;  // every accepted name, for the guess
    bool known = false;
    for (const auto& family : families) {
      known = known || op_key(family) == wanted;
      spellings.push_back(family);
    }
    for (const auto type : hipdnn_node_types()) {
      known = known || op_key(type) == wanted;
      spellings.push_back(type);
    }
    if (known) continue;
    const auto guess = closest_match(op, spellings);
    return fmt::format(
        "--op {}: not an op family or node type{}; the families are {} (or give a hipDNN "
        "node type, e.g. ConvolutionFwdAttributes)",
        op, guess.empty() ? "" : fmt::format(" (did you mean {}?)", guess), fmt::join(families, ", "));
  }
  return "";
}

std::optional<Graph> GraphLoader::load(const GraphInput& input, GraphResult& result) {
  result.graph_path = input.path;
  result.graph_name = std::filesystem::path(input.file).stem().string();
  if (input.error) {
    result.ok = false;
    result.error_message = *input.error;
    return std::nullopt;
  }
  std::optional<Graph> graph;
  std::string text;
  try {
    text = read_input_text(input);
    graph = parse_graph_json(text, input.path);
    graph->source_path = input.path;
    result.graph_name = graph->name;
    validate_graph(*graph, options_.limits);
  } catch (const std::exception& e) {
    result.ok = false;
    result.error_message = e.what();
    return std::nullopt;
  }
  if (!graph_has_op(*graph, options_.ops)) {
    result.filtered = true;
    return std::nullopt;
  }
  if (auto key = canonical_graph_content(text)) {
    result.content_hash = content_hash(*key);
    graph->content_hash = *result.content_hash;
    const auto [it, inserted] = first_path_.try_emplace(std::move(*key), input.path);
    if (!inserted) {
      result.duplicate_of = it->second;
      return std::nullopt;
    }
  }
  // Last, so that a graph filtered out or met before is never refused for its size.
  if (const auto refusal = host_budget_refusal(*graph, options_); !refusal.empty()) {
    result.ok = false;
    result.error_message = InputError(input.path, "", refusal).what();
    return std::nullopt;
  }
  return graph;
}

}  // namespace dnnbench
