#pragma once
// Per op family rules (graph/ops/<family>.cpp), found through find_op_rules by the file's
// node `type`. Adding an op = one file here + a line in op_rules.cpp's table.
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.hpp"

namespace dnnbench {

// Where a node sits in its file, to build error locations ("nodes[3]").
struct NodeContext {
  const std::string& file;
  std::string path;  // JSON path of the node, e.g. "nodes[3]"
};

struct NodeCost {
  double flops = 0;
  std::int64_t reduction_length = 1;
};

struct OpRules {
  std::string_view type;  // file spelling of the node type
  OpKind kind;
  // Reads the op's settings (parameters / attributes / inline pointwise keys) into node.params.
  void (*parse)(const nlohmann::json& node_json, Node& node, const NodeContext& where);
  // Shape rules: roles present, ranks, output dims; may fill derived params. Throws InputError.
  void (*validate)(const Graph& graph, Node& node, const NodeContext& where);
  NodeCost (*cost)(const Graph& graph, const Node& node);
  // Every key the op's settings may have (under `parameters` / `attributes`, or for pointwise
  // inline in `inputs`); any other key is a load error, so that a typo never runs as a default.
  std::span<const std::string_view> settings;
};

// nullptr when the type is not executable by this tool (the node parses as OpKind::unsupported).
const OpRules* find_op_rules(std::string_view type);

// Every node type of hipDNN's graph format (its NodeAttributes union), executed here or not. A
// node type outside it is a typo or not a hipDNN graph: a load error, not a skipped row.
std::span<const std::string_view> hipdnn_node_types();
bool is_hipdnn_node_type(std::string_view type);

// The op families (`conv_fwd`, `matmul`, ...) of the ops this tool executes, for --op.
std::vector<std::string> op_family_names();

}  // namespace dnnbench
